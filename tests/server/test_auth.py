"""Every request needs the bearer token; the discovery file is private and ours."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from agent_tui.server.auth import TOKEN_ENV, remove_server_file, resolve_token, server_file, write_server_file

from .conftest import Api


async def test_missing_token_is_401_with_a_bearer_challenge(api: Api) -> None:
    async with api.client.get("/api/session") as resp:
        assert resp.status == 401
        assert resp.headers["WWW-Authenticate"] == "Bearer"
        body = await resp.json()
    assert body["error"]["type"] == "unauthorized"
    assert "Authorization: Bearer" in body["error"]["message"]


async def test_wrong_token_or_scheme_is_401(api: Api) -> None:
    for header in ("Bearer nope", "Basic dGVzdA==", "Bearer", "test-token-0123456789"):
        async with api.client.get("/api/session", headers={"Authorization": header}) as resp:
            assert resp.status == 401, header
            assert (await resp.json())["error"]["message"] == "invalid bearer token"


async def test_unknown_routes_need_the_token_too(api: Api) -> None:
    async with api.client.get("/api/nothing-here") as resp:
        assert resp.status == 401
    status, body = await api.call("GET", "/api/nothing-here")
    assert status == 404
    assert body == {"error": {"type": "not-found", "message": "no such endpoint: GET /api/nothing-here"}}
    status, body = await api.call("PATCH", "/api/session")
    assert status == 405 and body["error"]["type"] == "method-not-allowed"


def test_token_comes_from_the_environment_or_is_random() -> None:
    assert resolve_token({TOKEN_ENV: " fixed "}) == ("fixed", True)
    first, from_env = resolve_token({})
    second, _ = resolve_token({})
    assert not from_env and first != second and len(first) >= 40


def test_server_file_is_owner_only_and_removed_only_by_its_writer(agent_home: Path) -> None:
    path = write_server_file({"url": "http://127.0.0.1:1", "token": "t1", "pid": os.getpid()})
    assert path == server_file() == agent_home / "server.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["token"] == "t1"
    remove_server_file("another-token")
    assert path.exists()  # a newer server wrote it: not ours to remove
    remove_server_file("t1")
    assert not path.exists()
