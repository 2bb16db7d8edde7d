"""``[shell]`` settings: validated at the boundary, and carried to the bash tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.host.port import ToolInvocation
from agent_tui.core.host.tool_host import RegistryToolHost
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.config_layers import ConfigError
from agent_tui.core.settings.config_validation import load_settings
from agent_tui.tools.bash import BASH
from agent_tui.tools.permissions import AllowAll
from agent_tui.tools.registry import ToolRegistry


@pytest.mark.parametrize("bad", ['["GITHUB-TOKEN"]', '["A B"]', '[""]', '"GITHUB_TOKEN"', "[1]"])
def test_a_bad_env_include_names_its_file_and_key(workdir: Path, agent_home: Path, bad: str) -> None:
    (agent_home / "config.toml").write_text(f"[shell.env]\ninclude = {bad}\n")
    with pytest.raises(ConfigError) as error:
        load_settings(workdir, environ={})
    assert "config.toml" in str(error.value) and "shell.env.include" in str(error.value)


def test_unknown_shell_keys_are_refused(workdir: Path, agent_home: Path) -> None:
    (agent_home / "config.toml").write_text("[shell.env]\ninclude_all = true\n")
    with pytest.raises(ConfigError, match="shell.env.include_all"):
        load_settings(workdir, environ={})


async def test_the_shell_env_setting_reaches_bash(
    workdir: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (agent_home / "config.toml").write_text('[shell.env]\ninclude = ["ANTHROPIC_API_KEY", "AWS_*"]\n')
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    configured = load_settings(workdir, environ={})
    for current, expected in ((Settings(), "unset"), (configured, "sk-ant")):
        registry = ToolRegistry(workdir)
        registry.register(BASH)
        host = RegistryToolHost(current, registry, workdir, workdir, AllowAll(), "build")  # type: ignore[arg-type]
        call = ToolInvocation(
            "ses_1",
            "msg_1",
            "call_1",
            "bash",
            {"command": 'echo "${ANTHROPIC_API_KEY:-unset} ${OPENAI_API_KEY:-unset}"'},
        )
        settled = await host.execute(call, lambda _: None)
        assert settled.output is not None and settled.output.text.startswith(f"{expected} unset")
