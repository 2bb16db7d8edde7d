"""Remote servers that want a token: ``bearer_token_env_var``, and a stored OAuth login sent,
refreshed when it expires, and named in the failure when it cannot be. Real processes over real
HTTP: the SDK-built MCP server that answers 401 without a valid token, and the authorization
server beside it (``tests/fakes/mcp_oauth.py``)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.mcp.oauth import _connect_once as connect_once
from agent_tui.tools.mcp.oauth import connection_auth, login
from agent_tui.tools.mcp.sdk_log import load_sdk
from agent_tui.tools.mcp.token_store import FileTokenStore
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig
from tests.fakes.oauth_process import OAuthServer, follow, oauth_server

SECRET = "s3cret-static-token-0123456789"


@pytest.fixture
def guarded() -> Iterator[OAuthServer]:
    with oauth_server(bearer=SECRET) as server:
        yield server


@pytest.fixture
def short_lived() -> Iterator[OAuthServer]:
    with oauth_server(ttl_s=2) as server:
        yield server


@pytest.fixture
def store(tmp_path: Path) -> FileTokenStore:
    return FileTokenStore(tmp_path / "home")


@pytest.fixture
async def sdk_log(tmp_path: Path) -> AsyncIterator[Path]:
    log = tmp_path / "mcp.log"
    await load_sdk(log)
    yield log


async def started(name: str, config: McpServerConfig, where: Path, store: FileTokenStore | None) -> McpConnection:
    connection = McpConnection(name, config, where, tokens=store)
    connection.start()
    await connection.settled()
    return connection


EXPIRED = "failed to start: the login has expired or was refused and could not be refreshed: run `agent-tui mcp login guarded`"


async def failure_of(name: str, config: McpServerConfig, where: Path, store: FileTokenStore | None) -> str | None:
    """The error of a connection that must fail to start (stopped before returning)."""
    connection = await started(name, config, where, store)
    try:
        assert connection.state is McpState.FAILED
        return connection.error
    finally:
        await connection.stop()


async def logged_in(server: OAuthServer, store: FileTokenStore) -> McpServerConfig:
    """Log in as ``agent-tui mcp login`` does, the test following the printed URL as the user's browser."""
    config = McpServerConfig(url=server.url, type="sse" if server.transport == "sse" else None)
    followed: list[asyncio.Task[object]] = []

    def say(line: str) -> None:
        for word in line.split():
            if word.startswith("http://"):
                followed.append(asyncio.ensure_future(asyncio.to_thread(follow, word)))

    await login("guarded", config, store, say, timeout_s=60)
    await asyncio.gather(*followed)
    return config


async def expired(store: FileTokenStore) -> None:
    """Wait until the stored access token's lifetime is over (no fixed sleep: its own expiry time)."""
    record = store.load("guarded")
    assert record is not None
    while time.time() <= record["expires_at"]:
        await asyncio.sleep(0.05)


async def test_the_token_from_bearer_token_env_var_is_sent_and_never_shown(
    guarded: OAuthServer, workdir: Path, monkeypatch: pytest.MonkeyPatch, sdk_log: Path
) -> None:
    monkeypatch.setenv("GUARD_TOKEN", SECRET)
    config = McpServerConfig(url=guarded.url, bearer_token_env_var="GUARD_TOKEN")
    connection = await started("guarded", config, workdir, None)
    try:
        assert connection.state is McpState.READY, connection.error
        result = await connection.call("whoami", {})
        assert result.content[0].text == "client: static"
        assert SECRET in guarded.stats()["seen"]
    finally:
        await connection.stop()
    assert SECRET not in sdk_log.read_text() if sdk_log.exists() else True


async def test_a_missing_or_empty_bearer_variable_fails_the_server_without_sending_anything(
    guarded: OAuthServer, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = McpServerConfig(url=guarded.url, bearer_token_env_var="GUARD_TOKEN")
    for value in (None, "", "   "):
        if value is None:
            monkeypatch.delenv("GUARD_TOKEN", raising=False)
        else:
            monkeypatch.setenv("GUARD_TOKEN", value)
        assert await failure_of("guarded", config, workdir, None) == (
            "failed to start: bearer_token_env_var: $GUARD_TOKEN is not set or empty "
            "(set it to the token for MCP server guarded)"
        )
    assert guarded.stats()["seen"] == []  # no request carried an (empty) token


async def test_a_refused_bearer_token_fails_with_the_variable_named_not_the_token(
    guarded: OAuthServer, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GUARD_TOKEN", "wrong-token-value")
    connection = await started(
        "guarded", McpServerConfig(url=guarded.url, bearer_token_env_var="GUARD_TOKEN"), workdir, None
    )
    try:
        assert connection.state is McpState.FAILED
        assert connection.error == "failed to start: the server refused the token from $GUARD_TOKEN (HTTP 401)"
    finally:
        await connection.stop()


async def test_a_server_that_wants_a_login_names_the_command(
    guarded: OAuthServer, workdir: Path, store: FileTokenStore
) -> None:
    connection = await started("guarded", McpServerConfig(url=guarded.url), workdir, store)
    try:
        assert connection.state is McpState.FAILED
        assert (
            connection.error
            == "failed to start: the server wants a login (HTTP 401): run `agent-tui mcp login guarded`"
        )
    finally:
        await connection.stop()
    assert guarded.stats()["authorization_code"] == 0 and store.load("guarded") is None


async def test_a_stored_login_is_sent_and_an_expired_token_refreshed_and_stored(
    short_lived: OAuthServer, workdir: Path, store: FileTokenStore
) -> None:
    config = await logged_in(short_lived, store)
    first = store.load("guarded")
    assert first is not None and first["url"] == short_lived.url
    await expired(store)
    connection = await started("guarded", config, workdir, store)
    try:
        assert connection.state is McpState.READY, connection.error
        result = await connection.call("whoami", {})
        assert result.content[0].text.startswith("client: client-")
    finally:
        await connection.stop()
    stats = short_lived.stats()
    assert (stats["authorization_code"], stats["refresh_token"], stats["refused_refresh"]) == (1, 1, 0)
    second = store.load("guarded")
    assert second is not None
    assert second["tokens"]["access_token"] != first["tokens"]["access_token"]
    assert second["tokens"]["refresh_token"] != first["tokens"]["refresh_token"]
    assert second["expires_at"] > first["expires_at"]
    assert second["tokens"]["access_token"] in stats["seen"]


async def test_a_refresh_the_server_refuses_fails_the_server_naming_the_login_command(
    short_lived: OAuthServer, workdir: Path, store: FileTokenStore, sdk_log: Path
) -> None:
    config = await logged_in(short_lived, store)
    record = store.load("guarded")
    assert record is not None
    short_lived.revoke()
    await expired(store)
    assert await failure_of("guarded", config, workdir, store) == EXPIRED
    assert short_lived.stats()["refused_refresh"] == 1
    logged = sdk_log.read_text() if sdk_log.exists() else ""
    assert record["tokens"]["access_token"] not in logged and record["tokens"]["refresh_token"] not in logged


async def test_a_login_for_another_url_is_not_sent(
    short_lived: OAuthServer, workdir: Path, store: FileTokenStore
) -> None:
    await logged_in(short_lived, store)
    moved = McpServerConfig(url=short_lived.url + "/")
    connection = await started("guarded", moved, workdir, store)
    try:
        assert connection.state is McpState.FAILED
        assert "run `agent-tui mcp login guarded`" in (connection.error or "")
    finally:
        await connection.stop()


@pytest.mark.parametrize("how", ["bearer", "login"])
async def test_an_sse_server_gets_the_token_too(
    how: str, workdir: Path, store: FileTokenStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    with oauth_server(bearer=SECRET, transport="sse") as server:
        if how == "bearer":
            monkeypatch.setenv("GUARD_TOKEN", SECRET)
            config = McpServerConfig(url=server.url, type="sse", bearer_token_env_var="GUARD_TOKEN")
        else:
            config = await logged_in(server, store)
        connection = await started("guarded", config, workdir, store)
        try:
            assert connection.state is McpState.READY, connection.error
            result = await connection.call("whoami", {})
            record = store.load("guarded")
            client = "static" if how == "bearer" else (record or {})["client"]["client_id"]
            assert result.content[0].text == f"client: {client}"
        finally:
            await connection.stop()


async def test_a_token_refused_before_its_expiry_is_refreshed_once_stored_and_the_request_retried(
    guarded: OAuthServer, workdir: Path, store: FileTokenStore
) -> None:
    config = await logged_in(guarded, store)
    first = store.load("guarded")
    assert first is not None
    guarded.revoke_access()  # revoked server-side: the recorded expiry is an hour away
    connection = await started("guarded", config, workdir, store)
    try:
        assert connection.state is McpState.READY, connection.error
        second = store.load("guarded")
        assert second is not None
        assert second["tokens"]["refresh_token"] != first["tokens"]["refresh_token"]
        guarded.revoke_access()  # again mid-session: the call refreshes and is retried
        result = await connection.call("whoami", {})
        assert result.content[0].text == f"client: {first['client']['client_id']}"
    finally:
        await connection.stop()
    stats = guarded.stats()
    assert (stats["authorization_code"], stats["refresh_token"], stats["refused_refresh"]) == (1, 2, 0)
    third = store.load("guarded")
    assert third is not None and third["tokens"]["access_token"] == stats["seen"][-1]


async def test_a_refused_token_whose_refresh_is_refused_too_fails_naming_the_login_command(
    guarded: OAuthServer, workdir: Path, store: FileTokenStore
) -> None:
    config = await logged_in(guarded, store)
    record = store.load("guarded")
    guarded.revoke_access()
    guarded.revoke()
    assert await failure_of("guarded", config, workdir, store) == EXPIRED
    stats = guarded.stats()
    assert (stats["refresh_token"], stats["refused_refresh"]) == (0, 1)  # one refresh tried, no second
    assert store.load("guarded") == record  # nothing stored over the login


async def test_two_processes_refreshing_one_login_never_spend_a_rotated_refresh_token(
    short_lived: OAuthServer, store: FileTokenStore
) -> None:
    """Each process loaded the login before either refreshed (their own copies of the record); the
    second, once it holds the lock, finds the first one's rotated tokens and uses them."""
    config = await logged_in(short_lived, store)
    ours, theirs = (connection_auth("guarded", config, store) for _ in range(2))
    await expired(store)
    await asyncio.gather(connect_once(config, ours), connect_once(config, theirs))
    stats = short_lived.stats()
    assert (stats["refresh_token"], stats["refused_refresh"]) == (1, 0)
    record = store.load("guarded")
    assert record is not None
    await expired(store)  # the stored (rotated) refresh token still works
    await connect_once(config, connection_auth("guarded", config, store))
    assert (short_lived.stats()["refresh_token"], short_lived.stats()["refused_refresh"]) == (2, 0)


async def test_two_real_processes_refreshing_one_login_at_once_both_connect(
    short_lived: OAuthServer, store: FileTokenStore
) -> None:
    """Both processes hold the same spent-to-be refresh token in memory before either refreshes;
    without the lock and the re-read, the second refresh is refused and that process fails."""
    config = await logged_in(short_lived, store)
    await expired(store)
    script = Path(__file__).resolve().parents[2] / "fakes" / "oauth_connect.py"
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            str(script),
            str(store.file.parent),
            "guarded",
            str(config.url),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        for _ in range(2)
    ]
    for process in processes:  # both have read the record
        assert process.stdout is not None
        assert (await asyncio.wait_for(process.stdout.readline(), 60)).strip() == b"loaded"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        await process.stdin.drain()
    outputs = [await asyncio.wait_for(process.communicate(), 60) for process in processes]
    assert [out.decode().strip() for out, _ in outputs] == ["connected", "connected"]
    stats = short_lived.stats()
    assert (stats["refresh_token"], stats["refused_refresh"]) == (1, 0)
