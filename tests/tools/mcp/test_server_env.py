"""What a stdio server's process sees of agent-tui's environment: the minimum and what its config names."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

from .conftest import unruly_config


async def _environment(config: McpServerConfig, location: Path) -> dict[str, str]:
    connection = McpConnection("unruly", config, location)
    connection.start()
    await connection.settled()
    try:
        assert connection.state is McpState.READY, connection.error
        return json.loads((await connection.call("environment", {})).content[0].text)
    finally:
        await connection.stop()


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    value = secrets.token_hex(16)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + value)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + value)
    monkeypatch.setenv("SOME_RANDOM_SECRET", value)
    monkeypatch.setenv("NAMED_FOR_THE_SERVER", "shared on purpose")
    monkeypatch.setenv("HOME", "/home/someone")
    return value


async def test_a_server_gets_no_secret_only_the_minimum_and_its_env_table(secret: str, workdir: Path) -> None:
    seen = await _environment(unruly_config(env={"TABLE_VAR": "from the table"}), workdir)
    assert not {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SOME_RANDOM_SECRET", "NAMED_FOR_THE_SERVER"} & seen.keys()
    assert not any(secret in value for value in seen.values())
    assert seen["PATH"] and seen["HOME"] == "/home/someone" and seen["TABLE_VAR"] == "from the table"


async def test_a_variable_named_in_env_vars_reaches_the_server(secret: str, workdir: Path) -> None:
    seen = await _environment(unruly_config(env_vars=["NAMED_FOR_THE_SERVER", "NOT_SET_ANYWHERE"]), workdir)
    assert seen["NAMED_FOR_THE_SERVER"] == "shared on purpose" and "NOT_SET_ANYWHERE" not in seen
    assert "SOME_RANDOM_SECRET" not in seen and "OPENAI_API_KEY" not in seen


def test_env_vars_apply_only_to_a_command_server_and_are_variable_names() -> None:
    with pytest.raises(ValueError, match="env_vars"):
        McpServerConfig(url="http://127.0.0.1:9/mcp", env_vars=["X"])
    with pytest.raises(ValueError, match="'GITHUB_TOKEN=abc' is not a variable name"):
        McpServerConfig(command=["server"], env_vars=["GITHUB_TOKEN=abc"])
