"""Server fixtures: a real runtime (SQLite file, fake provider over HTTP) behind real HTTP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer

from agent_tui.core.api import Runtime
from agent_tui.server.app import build_app

TOKEN = "test-token-0123456789"


@pytest.fixture
async def runtime(open_runtime: Any) -> AsyncIterator[Runtime]:
    """No headless policy: a tool that asks waits for an HTTP reply. Test tools are allowed."""
    allow_test_tools = {"permission": [{"action": "test", "pattern": "*", "effect": "allow"}]}
    async with await open_runtime(cli=allow_test_tools, policy=None, tools="all") as opened:
        yield opened


@dataclass
class Api:
    """An authorised client; ``call`` returns ``(status, json)``."""

    client: TestClient
    headers: dict[str, str] = field(default_factory=lambda: {"Authorization": f"Bearer {TOKEN}"})

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw: bytes | None = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """A body is sent as ``application/json`` unless ``headers`` say otherwise."""
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        sent = {**self.headers, **({"Content-Type": "application/json"} if data is not None else {}), **(headers or {})}
        async with self.client.request(method, path, data=data, params=params, headers=sent) as resp:
            text = await resp.text()
            return resp.status, json.loads(text) if text else None

    async def create(self, location: Path, **fields: Any) -> str:
        status, session = await self.call("POST", "/api/session", {"location": str(location), **fields})
        assert status in (200, 201), session
        return session["id"]

    async def wait_idle(self, sid: str, timeout: float = 20) -> None:
        async def idle() -> None:
            while True:
                status, active = await self.call("GET", "/api/session/active")
                assert status == 200
                if sid not in active:
                    return
                await asyncio.sleep(0.01)

        await asyncio.wait_for(idle(), timeout)

    async def wait_event(self, sid: str, kind: str, timeout: float = 20) -> None:
        """Until the session's history holds an event of ``kind`` (e.g. ``tool.called``)."""

        async def seen() -> None:
            while not any(short(e["type"]) == kind for e in await self.history(sid)):
                await asyncio.sleep(0.005)

        await asyncio.wait_for(seen(), timeout)

    async def history(self, sid: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        after = 0
        while True:
            status, page = await self.call("GET", f"/api/session/{sid}/history", params={"after": after, "limit": 100})
            assert status == 200, page
            events += page["data"]
            if not page["has_more"]:
                return events
            after = page["data"][-1]["seq"]

    async def open_log(self, sid: str, headers: dict[str, str] | None = None, **params: Any) -> ClientResponse:
        resp = await self.client.get(
            f"/api/session/{sid}/log", params=params, headers={**self.headers, **(headers or {})}
        )
        return resp


@pytest.fixture
async def api(runtime: Runtime) -> AsyncIterator[Api]:
    app = build_app(
        runtime.sessions, TOKEN, settings_for=runtime.settings_for, mcp_status=runtime.mcp_status, keepalive_s=0.2
    )
    async with TestClient(TestServer(app)) as client:
        yield Api(client)


def short(event_type: str) -> str:
    return event_type.removeprefix("session.").removesuffix(".1")


@dataclass
class SseEvent:
    event: str | None
    data: str
    id: str | None

    def json(self) -> Any:
        return json.loads(self.data)


class SseReader:
    """Parses a text/event-stream response into events (comments skipped)."""

    def __init__(self, resp: ClientResponse) -> None:
        self.resp = resp

    async def next(self, timeout: float = 20) -> SseEvent:
        return await asyncio.wait_for(self._next(), timeout)

    async def _next(self) -> SseEvent:
        fields: dict[str, list[str]] = {}
        while True:
            raw = await self.resp.content.readline()
            if not raw:
                raise EOFError("the stream ended")
            line = raw.decode().rstrip("\n")
            if line == "":
                if fields:
                    return SseEvent(
                        event=(fields.get("event") or [None])[-1],
                        data="\n".join(fields.get("data", [])),
                        id=(fields.get("id") or [None])[-1],
                    )
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))

    async def until(self, predicate: Any, timeout: float = 20) -> list[SseEvent]:
        """Every event up to and including the first that matches."""
        seen: list[SseEvent] = []
        while True:
            event = await self.next(timeout)
            seen.append(event)
            if predicate(event):
                return seen

    async def rest(self, timeout: float = 20) -> list[SseEvent]:
        seen: list[SseEvent] = []
        while True:
            try:
                seen.append(await self.next(timeout))
            except EOFError:
                return seen
