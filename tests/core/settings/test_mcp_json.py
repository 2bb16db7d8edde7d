"""A project's ``.mcp.json`` (Claude Code's format): its servers join the project's layer, start only
once the project is trusted, have ``${VAR}`` / ``${VAR:-default}`` filled in, and yield to agent-tui's
own ``[mcp.servers]`` of the same name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.settings import trust
from agent_tui.core.settings.config_layers import ConfigError, config_stamp, read_layers
from agent_tui.core.settings.config_validation import load_settings


@pytest.fixture(autouse=True)
def stored_trust_only():
    trust.assume(None)
    yield
    trust.assume(None)


def _mcp_json(workdir: Path, servers: dict[str, Any]) -> Path:
    path = workdir / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


SERVERS = {
    "notes": {"command": "${PY:-python3}", "args": ["-m", "notes", "--root", "${ROOT}"], "env": {"TOKEN": "${TOKEN}"}},
    "remote": {
        "type": "http",
        "url": "https://${HOST:-mcp.example.com}/mcp",
        "headers": {"Authorization": "Bearer ${TOKEN}"},
    },
    "legacy": {"type": "sse", "url": "https://old.example.com/sse"},
}
ENV = {"ROOT": "/srv", "TOKEN": "s3cret"}


def _trust(workdir: Path) -> None:
    untrusted = read_layers(workdir, environ=ENV).untrusted
    assert untrusted is not None
    trust.trust(untrusted.config, untrusted.powers)


def test_an_untrusted_projects_mcp_json_servers_wait_and_the_trust_prompt_lists_them(workdir: Path) -> None:
    _mcp_json(workdir, SERVERS)
    settings = load_settings(workdir, environ=ENV)
    assert settings.mcp.servers == {}
    untrusted = settings.untrusted_project
    assert untrusted is not None and untrusted.config == workdir / ".agent-tui" / "config.toml"
    assert untrusted.powers.lines == (
        "start MCP server notes (.mcp.json): ${PY:-python3} -m notes --root ${ROOT}",
        "connect MCP server remote (.mcp.json) at https://${HOST:-mcp.example.com}/mcp",
        "connect MCP server legacy (.mcp.json) at https://old.example.com/sse",
    )  # as written: the trust prompt never shows what the environment fills in (the token)


def test_a_trusted_projects_servers_have_their_variables_filled_in(workdir: Path) -> None:
    _mcp_json(workdir, SERVERS)
    _trust(workdir)
    servers = load_settings(workdir, environ=ENV).mcp.servers
    assert servers["notes"].command == ["python3", "-m", "notes", "--root", "/srv"]
    assert servers["notes"].env == {"TOKEN": "s3cret"} and servers["notes"].transport == "stdio"
    assert servers["remote"].url == "https://mcp.example.com/mcp"
    assert servers["remote"].headers == {"Authorization": "Bearer s3cret"} and servers["remote"].transport == "http"
    assert servers["legacy"].transport == "sse"
    other = load_settings(workdir, environ={**ENV, "TOKEN": "rotated", "HOST": "h.test"}).mcp.servers
    assert other["remote"].url == "https://h.test/mcp"  # still trusted: the digest pins the file, not the secret
    assert other["notes"].env == {"TOKEN": "rotated"}
    _mcp_json(workdir, {**SERVERS, "notes": {**SERVERS["notes"], "command": "curl"}})
    changed = load_settings(workdir, environ=ENV)
    assert changed.mcp.servers == {} and changed.untrusted_project is not None  # a new command asks again


def test_a_server_naming_an_unset_variable_is_left_out_with_one_problem(workdir: Path) -> None:
    path = _mcp_json(workdir, SERVERS)
    _trust(workdir)
    settings = load_settings(workdir, environ={"ROOT": "/srv"})
    assert set(settings.mcp.servers) == {"legacy"}
    assert settings.problems == [
        f"{path}: MCP server notes left out: ${{TOKEN}} is not set (give it a value, or a default: ${{TOKEN:-…}})",
        f"{path}: MCP server remote left out: ${{TOKEN}} is not set (give it a value, or a default: ${{TOKEN:-…}})",
    ]


def test_agent_tuis_own_server_of_the_same_name_wins(workdir: Path, agent_home: Path) -> None:
    _mcp_json(workdir, SERVERS)
    (agent_home / "config.toml").write_text('[mcp.servers.notes]\ncommand = ["mine"]\n')
    config = workdir / ".agent-tui" / "config.toml"
    config.parent.mkdir()
    config.write_text('[mcp.servers.remote]\nurl = "https://project.example.com/mcp"\n')
    _trust(workdir)
    servers = load_settings(workdir, environ=ENV).mcp.servers
    assert servers["notes"].command == ["mine"]
    assert servers["remote"].url == "https://project.example.com/mcp" and servers["remote"].headers == {}
    assert servers["legacy"].url == "https://old.example.com/sse"


def test_entries_agent_tui_cannot_use_are_problems_and_a_broken_file_fails(workdir: Path) -> None:
    path = _mcp_json(
        workdir,
        {
            "ok": {"command": "x"},
            "ws": {"type": "websocket", "url": "wss://x"},
            "nothing": {"args": ["a"]},
            "bad__name": {"command": "x"},
            "numbers": {"command": "x", "env": {"N": 1}},
        },
    )
    trust.assume(True)
    settings = load_settings(workdir, environ={})
    assert set(settings.mcp.servers) == {"ok"}
    assert [line.removeprefix(f"{path}: MCP server ") for line in settings.problems] == [
        "ws: unknown type 'websocket' (stdio, http or sse)",
        'nothing: a stdio server needs "command" (a string)',
        "bad__name: the name may only have letters, digits, '-' and single '_' (it is part of tool names)",
        'numbers: "args" must be a list of strings and "env" an object of strings',
    ]
    path.write_text("{not json")
    with pytest.raises(ConfigError, match=r"\.mcp\.json: invalid JSON"):
        load_settings(workdir, environ={})


def test_editing_mcp_json_changes_the_config_stamp(workdir: Path) -> None:
    before = config_stamp(workdir, {})
    _mcp_json(workdir, SERVERS)
    assert config_stamp(workdir, {}) != before


def test_project_config_turned_off_reads_no_mcp_json(workdir: Path) -> None:
    _mcp_json(workdir, SERVERS)
    trust.assume(True)
    assert load_settings(workdir, environ={"AGENT_TUI_DISABLE_PROJECT_CONFIG": "1"}).mcp.servers == {}


def test_a_remote_servers_bearer_token_env_var_is_kept_by_name(workdir: Path) -> None:
    path = _mcp_json(
        workdir, {"api": {"type": "http", "url": "https://api.example.com/mcp", "bearer_token_env_var": "API_TOKEN"}}
    )
    _trust(workdir)
    assert load_settings(workdir, environ=ENV).mcp.servers["api"].bearer_token_env_var == "API_TOKEN"
    path.write_text(
        json.dumps({"mcpServers": {"api": {"url": "https://api.example.com/mcp", "bearer_token_env_var": 7}}})
    )
    settings = load_settings(workdir, environ=ENV)
    assert "api" not in settings.mcp.servers
    assert any('"bearer_token_env_var" must be a variable name' in line for line in settings.problems)
