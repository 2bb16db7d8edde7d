"""Opening a project whose config asks for powers: the app asks once, one key trusts it, and the
MCP server it names starts only then (the real core, a real MCP server process)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_tui.core.api import trust
from agent_tui.tui.app import AgentApp
from agent_tui.tui.bootstrap import CoreOpener, Launch, ModelFacts
from agent_tui.tui.screens.trust import TrustScreen
from agent_tui.tui.services import TuiServices
from tests.tui.conftest import until

SERVER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py"


@pytest.fixture(autouse=True)
def stored_trust_only():
    trust.assume(None)
    yield
    trust.assume(None)


def project(workdir: Path) -> None:
    config = workdir / ".agent-tui" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        f'[mcp.servers.notes]\ncommand = ["{sys.executable}", "{SERVER}", "stdio"]\nstartup_timeout_s = 60\n'
    )


def servers(services: TuiServices) -> dict[str, str]:
    return {s.name: str(s.state) for s in services.mcp.mcp_status()} if services.mcp is not None else {}


@pytest.mark.parametrize("key", ["t", "n"])
async def test_the_app_asks_to_trust_and_starts_the_server_only_when_trusted(workdir: Path, key: str) -> None:
    from agent_tui.core.api import read_layers

    project(workdir)
    services = TuiServices(sessions=None, location=str(workdir), model="openai/fake")
    opener = CoreOpener(Launch(model="openai/fake"), read_layers(workdir), services, ModelFacts())
    app = AgentApp(services, connect=opener.connect, watch_themes=False)
    try:
        async with app.run_test() as pilot:
            # the screen is pushed before its question is mounted
            await until(
                pilot, lambda: isinstance(app.screen, TrustScreen) and app.screen.query("#trust-question"), timeout=60
            )
            shown = str(app.screen.query_one("#trust-question").render())
            assert "start MCP server notes" in shown and str(workdir / ".agent-tui" / "config.toml") in shown
            await until(pilot, lambda: services.runnable.is_set(), timeout=60)
            assert servers(services) == {}  # nothing started before the answer
            await pilot.press(key)
            if key == "t":
                await until(pilot, lambda: servers(services).get("notes") == "ready", timeout=60)
                assert [e.config for e in trust.trusted_projects()] == [
                    str((workdir / ".agent-tui" / "config.toml").resolve())
                ]
            else:
                await until(pilot, lambda: not isinstance(app.screen, TrustScreen), timeout=60)
                assert servers(services) == {} and trust.trusted_projects() == []
    finally:
        await opener.close()


async def test_a_trusted_project_is_not_asked_again(workdir: Path) -> None:
    from agent_tui.core.api import read_layers

    project(workdir)
    untrusted = read_layers(workdir).untrusted
    assert untrusted is not None
    trust.trust(untrusted.config, untrusted.powers)
    services = TuiServices(sessions=None, location=str(workdir), model="openai/fake")
    opener = CoreOpener(Launch(model="openai/fake"), read_layers(workdir), services, ModelFacts())
    app = AgentApp(services, connect=opener.connect, watch_themes=False)
    try:
        async with app.run_test() as pilot:
            await until(pilot, lambda: servers(services).get("notes") == "ready", timeout=60)
            assert not isinstance(app.screen, TrustScreen) and services.trust_question is None
    finally:
        await opener.close()
