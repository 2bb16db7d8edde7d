"""An agent's own sandbox mode narrows the command sandbox for its steps (the plan agent: read-only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.host.port import ToolInvocation
from agent_tui.core.host.tool_host import RegistryToolHost
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.config_validation import load_settings
from agent_tui.tools.bash import BASH
from agent_tui.tools.permissions import AllowAll
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.sandbox import SandboxMode, bwrap_path, narrower, unavailable_reason


async def _write_in_project(settings: Settings, workdir: Path, agent: str) -> bool:
    """Whether ``agent``'s ``bash`` could write a file in the project (every ask allowed); it can
    always read the project, so a refusal is the sandbox's and not a command that could not start."""
    registry = ToolRegistry(workdir)
    registry.register(BASH)
    host = RegistryToolHost(settings, registry, workdir, workdir, AllowAll(), agent)  # type: ignore[arg-type]
    (workdir / "seen.txt").write_text("seen\n")
    target = workdir / f"made-by-{agent}.txt"
    command = f"cat seen.txt; echo hi > {target.name}"
    settled = await host.execute(ToolInvocation("ses_1", "msg_1", "call_1", "bash", {"command": command}), str)
    assert settled.output is not None and settled.output.text.startswith("seen"), settled
    return target.exists()


@pytest.mark.skipif(bwrap_path() is None, reason=f"no sandbox here: {unavailable_reason()}")
async def test_the_plan_agent_runs_commands_read_only_even_when_they_are_allowed(
    workdir: Path, agent_home: Path
) -> None:
    settings = load_settings(workdir, environ={})
    assert await _write_in_project(settings, workdir, "build")
    assert not await _write_in_project(settings, workdir, "plan")
    assert not await _write_in_project(settings, workdir, "explore")


@pytest.mark.skipif(bwrap_path() is None, reason=f"no sandbox here: {unavailable_reason()}")
async def test_an_agent_cannot_widen_the_configured_sandbox(workdir: Path, agent_home: Path) -> None:
    (agent_home / "config.toml").write_text('[sandbox]\nmode = "read-only"\n[agents.wide]\nsandbox = "full-access"\n')
    settings = load_settings(workdir, environ={})
    assert not await _write_in_project(settings, workdir, "wide")


def test_a_full_access_config_still_gives_the_plan_agent_read_only(workdir: Path, agent_home: Path) -> None:
    (agent_home / "config.toml").write_text('[sandbox]\nmode = "full-access"\n')
    settings = load_settings(workdir, environ={})
    plan, build = settings.command_sandbox(workdir, "plan"), settings.command_sandbox(workdir, "build")
    assert (plan.mode, build.mode) == (SandboxMode.READ_ONLY, SandboxMode.FULL_ACCESS)


@pytest.mark.parametrize("a", list(SandboxMode))
@pytest.mark.parametrize("b", list(SandboxMode))
def test_narrower_is_the_stricter_mode_whatever_the_order(a: SandboxMode, b: SandboxMode) -> None:
    order = [SandboxMode.READ_ONLY, SandboxMode.WORKSPACE_WRITE, SandboxMode.FULL_ACCESS]
    assert narrower(a, b) == narrower(b, a) == order[min(order.index(a), order.index(b))]
