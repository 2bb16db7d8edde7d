"""Runner fixtures: a real store file, the fake provider over HTTP, test tools."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.vocab.clock import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    """Records requested sleeps and returns at once: no test waits for backoff."""
    return ManualClock()


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {}


@pytest.fixture
async def runtime(open_runtime: Any, clock: ManualClock, settings_overrides: dict[str, Any]) -> AsyncIterator[Runtime]:
    cli = {"retry": {"base_delay_ms": 2000}, **settings_overrides}
    async with await open_runtime(cli=cli, policy="allow", clock=clock) as opened:
        yield opened


@pytest.fixture
async def litellm_loaded() -> None:
    """LiteLLM imported before the test starts, so that a wait for the first request (``fake.wait_for``)
    covers the drain, not the cold import (3-8 s on a loaded 2-core machine)."""
    from agent_tui.llm import lazy

    await asyncio.to_thread(lazy.load)


async def stored(runtime: Runtime, session_id: str) -> list[ev.StoredEvent]:
    return await runtime._store.events(session_id, limit=None)


def kinds(events: list[ev.StoredEvent], *, prefix: str = "session.") -> list[str]:
    """Event types without the ``session.`` prefix and ``.1`` suffix."""
    return [e.type.removeprefix(prefix).removesuffix(".1") for e in events]


async def settle(runtime: Runtime, session_id: str, timeout: float = 10.0) -> None:
    """Wait until the session has no active drain in this process.

    The timeout starts once LiteLLM is imported: its cold import (3-8 s on a loaded 2-core
    machine, paid by the first drain of the test process) is not the drain's own time.
    """
    from agent_tui.llm import lazy

    await asyncio.to_thread(lazy.load)

    async def idle() -> None:
        while session_id in runtime.sessions.active():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(idle(), timeout)


def of_type(events: list[ev.StoredEvent], cls: type) -> list[Any]:
    return [e.event for e in events if isinstance(e.event, cls)]


def system_text(body: dict[str, Any]) -> str:
    """The system messages of a request the fake provider recorded (OpenAI wire), joined."""
    return "\n".join(str(m["content"]) for m in body["messages"] if m["role"] == "system")


def reminders(body: dict[str, Any]) -> list[str]:
    """The ``<system-reminder>`` user messages of a recorded request: what was told after the baseline."""
    out = []
    for m in body["messages"]:
        raw = m.get("content") or ""
        content = raw if isinstance(raw, str) else " ".join(p.get("text", "") for p in raw)
        if m["role"] == "user" and content.startswith("<system-reminder>"):
            out.append(content)
    return out
