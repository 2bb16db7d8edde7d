"""Fixtures for the fake provider's own tests: raw HTTP, no LiteLLM in between."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from agent_tui.testing.fake_provider import FakeProvider


@pytest.fixture
async def fake() -> AsyncIterator[FakeProvider]:
    async with FakeProvider() as provider:
        yield provider


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def post(http: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], str]:
    async with http.post(url, json=body) as response:
        return response.status, dict(response.headers), await response.text()


def sse_events(text: str) -> list[tuple[str | None, Any]]:
    """``[(event, data)]`` from an SSE body; ``data`` JSON-decoded unless it is ``[DONE]``."""
    events = []
    for block in text.strip().split("\n\n"):
        name, data = None, None
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
        events.append((name, data if data == "[DONE]" else json.loads(data or "null")))
    return events
