"""Two runtimes on one PostgreSQL database, as two hosts in one process (``ClusterHost``).

Each opens its own store, leases and interrupt listener, as ``run`` and ``serve`` do when
``AGENT_TUI_DATABASE_URL`` is set. The first runs a session and is held mid-tool by a gate tool of
this test; the second admits a prompt to it (its wake finds the lease held, and leaves the prompt to
the owner), shows the session in its ``active()`` as the cluster's view, and can interrupt it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pydantic import BaseModel

from agent_tui.core.api import Runtime, SessionOwnedElsewhere
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.testing.test_tools import register as register_test_tools
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.tool_output import ToolOutput
from tests.waiting import until

WAIT_S = 60.0  # a first model call (LiteLLM's import) on a loaded 2-core machine takes a while


class GateInput(BaseModel):
    label: str = "gate"


@dataclass
class Gate:
    """A tool that waits until the test opens it: the owner is mid-tool for as long as needed."""

    entered: asyncio.Event = field(default_factory=asyncio.Event)
    open: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self, scope: ToolScope, params: GateInput) -> ToolResult:
        self.entered.set()
        await self.open.wait()
        return ToolResult(ToolOutput(text="gate opened"))

    def registry(self, location: Path) -> ToolRegistry:
        tools = ToolRegistry(location)
        register_test_tools(tools)
        tools.register(Tool("gate", "Wait for the test.", GateInput, self.run, action="test"))
        return tools


def gate_call() -> dict[str, Any]:
    return {"tool_calls": [{"id": "call_gate", "name": "gate", "arguments": {"label": "x"}}]}


def log_rows(url: str, session_id: str) -> list[tuple[str, int | None, str]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT type, fence, data_json FROM event WHERE session_id = %s ORDER BY seq", (session_id,)
        ).fetchall()
    return [(type_.removeprefix("session.").removesuffix(".1"), fence, data) for type_, fence, data in rows]


@dataclass
class Hosts:
    a: Runtime
    b: Runtime
    gate: Gate
    session_id: str


@pytest.fixture
async def hosts(
    fake: FakeProvider, pg_url: str, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Hosts]:
    monkeypatch.setenv("AGENT_TUI_DATABASE_URL", pg_url)
    from agent_tui.core.api import load_settings

    layer = {"model": "openai/fake-model", "api_base": fake.openai_base, "api_key": "test-key"}
    gate = Gate()

    async def open_one() -> Runtime:
        return await Runtime.open(
            lambda location: load_settings(location, cli=layer),
            permission_policy="allow",
            registry_factory=gate.registry,
        )

    a = await open_one()
    b = await open_one()
    try:
        fake.add(gate_call())
        session = await a.sessions.create(location=workdir)
        await a.sessions.prompt(session.id, "first, from a")
        await asyncio.wait_for(gate.entered.wait(), WAIT_S)
        yield Hosts(a, b, gate, session.id)
    finally:
        gate.open.set()
        await b.close()
        await a.close()


async def test_a_prompt_admitted_on_the_other_host_is_drained_once_by_the_owner(
    hosts: Hosts, fake: FakeProvider, pg_url: str
) -> None:
    fake.add({"text": "answer with both prompts"})
    sid = hosts.session_id
    await hosts.b.sessions.prompt(sid, "second, from b")  # admitted; b's wake finds a's lease and leaves it

    async def b_sees_a_running() -> bool:
        entry = hosts.b.sessions.active().get(sid)
        return entry is not None and entry["view"] == "cluster"

    await until(b_sees_a_running, "b's active() shows the session running on a", timeout=WAIT_S)
    assert sid in hosts.a.sessions.active() and "view" not in hosts.a.sessions.active()[sid]  # a's own entry

    hosts.gate.open.set()

    async def finished() -> bool:
        return log_rows(pg_url, sid)[-1][0] == "execution.succeeded"

    await until(finished, "a finished its drain", timeout=WAIT_S)
    rows = log_rows(pg_url, sid)
    types = [type_ for type_, _, _ in rows]
    assert types.count("execution.started") == 1  # one period, a's: b never ran the session
    promoted = [data for type_, _, data in rows if type_ == "prompt.promoted"]
    assert len(promoted) == 2 and len(fake.accepted) == 2  # each prompt once, no extra model call
    assert "second, from b" in str(fake.accepted[-1].body)
    drained = {fence for type_, fence, _ in rows[types.index("execution.started") :] if type_ != "prompt.admitted"}
    assert len(drained) == 1 and None not in drained  # every write of the drain under a's one token


async def test_an_interrupt_sent_on_the_other_host_stops_the_owners_run(hosts: Hosts, pg_url: str) -> None:
    sid = hosts.session_id
    await asyncio.wait_for(hosts.b.sessions.interrupt(sid), WAIT_S)  # returns once a's tenure is over
    rows = log_rows(pg_url, sid)
    assert rows[-1][0] == "execution.interrupted" and '"user"' in rows[-1][2]
    assert sid not in hosts.a.sessions.active()


async def test_a_session_running_on_the_other_host_cannot_be_deleted_here(hosts: Hosts, pg_url: str) -> None:
    sid = hosts.session_id
    with pytest.raises(SessionOwnedElsewhere, match="is running on"):
        await hosts.b.sessions.delete(sid)
    assert log_rows(pg_url, sid)[0][0] == "created"  # nothing deleted
