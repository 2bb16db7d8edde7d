"""Which sandbox a stdio MCP server runs in (``Settings.server_sandbox``), and what a project's own
config may say about it: confining servers applies at once, letting them out is a trust power."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent_tui.core.settings import config, config_layers, config_validation, trust
from agent_tui.core.settings.trust import split_powers
from agent_tui.tools.sandbox import SandboxMode
from agent_tui.vocab.mcp_server import McpServerConfig

from .test_trust import project, user_config

USER_SERVER = f"""
[mcp.servers.files]
command = [{sys.executable!r}, "-c", "pass"]
"""


@pytest.fixture(autouse=True)
def _stored_trust() -> None:
    trust.assume(None)


def _server(**fields: object) -> McpServerConfig:
    return McpServerConfig(command=["srv"], **fields)  # type: ignore[arg-type]


def test_a_server_runs_unconfined_unless_it_or_sandbox_mcp_servers_asks(workdir: Path) -> None:
    settings = config.Settings()
    assert settings.server_sandbox(workdir, _server()) is None
    policy = settings.server_sandbox(workdir, _server(sandbox=True))
    assert policy is not None and policy.mode is SandboxMode.WORKSPACE_WRITE and not policy.network
    assert policy.writable_roots[0] == workdir
    everyone = config.Settings.model_validate({"sandbox": {"mcp_servers": True}})
    assert everyone.server_sandbox(workdir, _server()) == policy


def test_the_servers_policy_is_sandboxs_with_its_own_network_and_never_full_access(workdir: Path) -> None:
    settings = config.Settings.model_validate({"sandbox": {"mode": "read-only", "network": True}})
    policy = settings.server_sandbox(workdir, _server(sandbox=True))
    assert policy is not None and policy.mode is SandboxMode.READ_ONLY and policy.network
    offline = settings.server_sandbox(workdir, _server(sandbox=True, network=False))
    assert offline is not None and not offline.network
    loose = config.Settings.model_validate({"sandbox": {"mode": "full-access"}})
    confined = loose.server_sandbox(workdir, _server(sandbox=True))
    assert confined is not None and confined.mode is SandboxMode.WORKSPACE_WRITE
    assert loose.server_sandbox(workdir, _server()) is None


def test_a_url_server_has_no_sandbox_to_ask_for() -> None:
    with pytest.raises(ValidationError, match="sandbox and network apply only to a command server"):
        McpServerConfig(url="http://127.0.0.1:9/mcp", sandbox=True)


def test_an_untrusted_project_may_confine_every_server_but_not_let_one_out(workdir: Path) -> None:
    user_config(USER_SERVER + "\n[sandbox]\nmcp_servers = true\n")
    project(workdir, "[sandbox]\nmcp_servers = false\n")
    settings = config_validation.load_settings(workdir, environ={})
    assert settings.untrusted_project is not None
    assert settings.server_sandbox(workdir, settings.mcp.servers["files"]) is not None
    assert "set the command sandbox's mcp_servers to false" in settings.untrusted_project.powers.lines

    user_config(USER_SERVER)
    project(workdir, "[sandbox]\nmcp_servers = true\n")
    settings = config_validation.load_settings(workdir, environ={})
    assert settings.untrusted_project is None  # narrowing asks nothing
    assert settings.server_sandbox(workdir, settings.mcp.servers["files"]) is not None


def test_a_project_cannot_turn_a_users_server_sandbox_off(workdir: Path) -> None:
    user_config(USER_SERVER + "sandbox = true\n")
    project(workdir, "[mcp.servers.files]\nsandbox = false\n")
    with pytest.raises(config_layers.ConfigError, match="set exactly one of command"):
        config_validation.load_settings(workdir, environ={})  # not a partial override: the layer is named as wrong
    project(workdir, USER_SERVER + "sandbox = false\n")
    settings = config_validation.load_settings(workdir, environ={})
    assert settings.untrusted_project is not None  # redefining the server is a power, asked first
    assert settings.server_sandbox(workdir, settings.mcp.servers["files"]) is not None


def test_the_trust_prompt_says_a_projects_server_is_sandboxed() -> None:
    _, powers = split_powers({"mcp": {"servers": {"x": {"command": ["srv"], "sandbox": True}}}})
    assert powers.lines == ("start MCP server x (sandboxed): srv",)
