"""``agent-tui mcp login|logout`` and ``--bearer-token-env-var``, run as the installed command: the
login follows the printed URL (the test is the user's browser), keeps the tokens in a file only the
user can read (the keyring is the fail backend here), a session's tool call then gets through, and
``mcp list/get`` show the auth state, never a token."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.oauth_process import OAuthServer, follow, oauth_server


@pytest.fixture
def guarded() -> Iterator[OAuthServer]:
    with oauth_server() as server:
        yield server


def agent_tui(workdir: Path, *words: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *words],
        cwd=workdir,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def logged_in(workdir: Path, server: OAuthServer) -> str:
    """``agent-tui mcp login guarded``: read the URL it prints, follow it, wait for it to finish; its output."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "mcp", "login", "guarded", "--timeout", "60"],
        cwd=workdir,
        env={k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.strip().startswith("http://"):
            assert follow(line.strip()).text == "agent-tui is logged in. You can close this tab."
            break
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return "".join(lines) + out


async def test_login_keeps_the_tokens_in_a_user_only_file_and_a_session_then_calls_the_server(
    guarded: OAuthServer, workdir: Path, agent_home: Path, fake: FakeProvider
) -> None:
    added = agent_tui(workdir, "mcp", "add", "guarded", "--url", guarded.url)
    assert added.returncode == 0, added.stderr
    assert json.loads(agent_tui(workdir, "mcp", "get", "guarded", "--json").stdout)["auth"] == "not logged in"

    out = logged_in(workdir, guarded)
    tokens = agent_home / "mcp-tokens.json"
    assert "Open this URL to log in to guarded:" in out and "code_challenge_method=S256" in out
    assert "browser" not in out  # no display, no $BROWSER: nothing is opened
    assert out.rstrip().endswith(f"logged in to MCP server guarded; the tokens are kept in {tokens}")
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    record = json.loads(tokens.read_text())["guarded"]
    assert record["tokens"]["access_token"] not in out and guarded.stats()["authorization_code"] == 1

    shown = agent_tui(workdir, "mcp", "get", "guarded")
    assert "auth: logged in (OAuth)" in shown.stdout and record["tokens"]["access_token"] not in shown.stdout

    fake.add(
        {"tool_calls": [{"id": "call_1", "name": "mcp__guarded__whoami", "arguments": {}}]},
        {"text": "Done."},
    )
    flags = ["--model", "openai/fake-model", "--api-base", fake.openai_base, "--api-key", "test-key"]
    ran = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "agent_tui", "run", *flags, "--permission", "allow", "who am i"],
        cwd=workdir,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = (part.decode() for part in await asyncio.wait_for(ran.communicate(), 90))
    assert ran.returncode == 0, stderr
    assert stdout.strip() == "Done."
    tool_result = json.dumps(fake.accepted[1].body["messages"][-1])
    assert f"client: {record['client']['client_id']}" in tool_result
    assert record["tokens"]["access_token"] in guarded.stats()["seen"]
    assert record["tokens"]["access_token"] not in stdout + stderr


def test_logout_deletes_the_tokens_and_says_so_once(guarded: OAuthServer, workdir: Path, agent_home: Path) -> None:
    assert agent_tui(workdir, "mcp", "add", "guarded", "--url", guarded.url).returncode == 0
    logged_in(workdir, guarded)
    tokens = agent_home / "mcp-tokens.json"
    first = agent_tui(workdir, "mcp", "logout", "guarded")
    assert (first.returncode, first.stdout) == (
        0,
        f"logged out of MCP server guarded: its tokens are deleted from {tokens}\n",
    )
    assert "guarded" not in json.loads(tokens.read_text())
    again = agent_tui(workdir, "mcp", "logout", "guarded")
    assert (again.returncode, again.stdout) == (0, f"MCP server guarded has no stored login (nothing in {tokens})\n")
    listed = agent_tui(workdir, "mcp", "list")
    assert f"guarded  http  {guarded.url}  (not logged in)  [user]" in listed.stdout


def test_a_login_nobody_finishes_ends_at_its_timeout_and_keeps_nothing(
    guarded: OAuthServer, workdir: Path, agent_home: Path
) -> None:
    assert agent_tui(workdir, "mcp", "add", "guarded", "--url", guarded.url).returncode == 0
    waited = agent_tui(workdir, "mcp", "login", "guarded", "--timeout", "1")
    assert waited.returncode == 1
    assert waited.stderr.strip() == "agent-tui: login to MCP server guarded failed: no login came back within 1 s"
    tokens = agent_home / "mcp-tokens.json"
    assert not tokens.exists() or "tokens" not in json.loads(tokens.read_text()).get("guarded", {})


def test_login_to_an_unknown_or_local_server_says_why(workdir: Path) -> None:
    unknown = agent_tui(workdir, "mcp", "login", "nowhere")
    assert (unknown.returncode, unknown.stderr.strip()) == (
        1,
        "agent-tui: no MCP server nowhere here (agent-tui mcp list shows them)",
    )
    assert agent_tui(workdir, "mcp", "add", "local", "--", sys.executable, "-c", "pass").returncode == 0
    local = agent_tui(workdir, "mcp", "login", "local")
    assert local.returncode == 1
    assert "MCP server local is not a remote (url) server: it needs no login" in local.stderr


def test_add_with_a_bearer_variable_writes_its_name_and_shows_it_never_its_value(
    workdir: Path, agent_home: Path
) -> None:
    secret = "tok-do-not-print-42"
    added = agent_tui(
        workdir, "mcp", "add", "api", "--url", "https://example.invalid/mcp", "--bearer-token-env-var", "API_TOKEN"
    )
    assert added.returncode == 0, added.stderr
    assert 'bearer_token_env_var = "API_TOKEN"' in (agent_home / "config.toml").read_text()
    for words in (["mcp", "get", "api"], ["mcp", "list"], ["mcp", "list", "--json"]):
        shown = agent_tui(workdir, *words, env={"API_TOKEN": secret})
        assert shown.returncode == 0, shown.stderr
        assert "bearer from $API_TOKEN" in shown.stdout and secret not in shown.stdout + shown.stderr
    misused = agent_tui(workdir, "mcp", "add", "cmd", "--bearer-token-env-var", "X", "--", "true")
    assert (misused.returncode, misused.stderr.strip()) == (
        2,
        "agent-tui: --bearer-token-env-var is for a --url server",
    )
    bad = agent_tui(workdir, "mcp", "add", "api2", "--url", "https://x.invalid/mcp", "--bearer-token-env-var", "1-bad")
    assert bad.returncode == 1 and "'1-bad' is not a variable name" in bad.stderr
