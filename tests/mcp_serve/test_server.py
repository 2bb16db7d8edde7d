"""agent-tui as an MCP server, in process: the SDK's own client against ``build_server`` over a
real runtime (SQLite file, the fake provider over HTTP, real tools)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.api import Runtime
from agent_tui.mcp_serve.server import build_server
from agent_tui.mcp_serve.session_tools import SessionTools
from agent_tui.testing.fake_provider import FakeProvider


@pytest.fixture
async def runtime(open_runtime: Any) -> AsyncIterator[Runtime]:
    async with await open_runtime(policy="deny", tools="all") as opened:
        yield opened


def connect(runtime: Runtime, workdir: Path) -> Any:
    """The SDK's client over its in-memory transport (in the test's own task: anyio's scopes)."""
    from mcp.client.client import Client

    return Client(build_server(SessionTools(runtime.sessions, workdir)))


async def call(client: Any, name: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def error_of(client: Any, name: str, **arguments: Any) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error
    return str(result.content[0].text)


async def test_a_client_starts_a_session_gets_the_answer_and_reads_the_log(
    fake: FakeProvider, runtime: Runtime, workdir: Path
) -> None:
    async with connect(runtime, workdir) as client:
        await _start_send_read(client, fake, runtime, workdir)


async def _start_send_read(client: Any, fake: FakeProvider, runtime: Runtime, workdir: Path) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"start_session", "send", "wait", "read_log", "interrupt", "list_sessions"}
    start = tools["start_session"]
    assert set(start.input_schema["properties"]) == {"prompt", "location", "agent", "model", "wait", "timeout_s"}
    assert start.input_schema["required"] == ["prompt"]
    assert (start.description or "").startswith("Start a new agent-tui session in location")
    fake.add({"text": "The answer is 42."}, {"text": "Still 42."})

    started = await call(client, "start_session", prompt="what is it?")
    sid = started["session_id"]
    assert started["answer"] == "The answer is 42." and started["running"] is False
    assert (await runtime.sessions.get(sid)).location == str(workdir.resolve())

    again = await call(client, "send", session_id=sid, prompt="sure?")
    assert again["answer"] == "Still 42."
    assert [m.kind for m in await runtime.sessions.messages(sid)] == ["user", "assistant", "user", "assistant"]

    log = await call(client, "read_log", session_id=sid)
    kinds = [event["type"] for event in log["events"]]
    assert kinds[0] == "session.created.1" and "session.execution.succeeded.1" in kinds
    page = await call(client, "read_log", session_id=sid, after=log["events"][-3]["seq"])
    assert [e["seq"] for e in page["events"]] == [e["seq"] for e in log["events"][-2:]]

    listed = await call(client, "list_sessions")
    assert [s["id"] for s in listed["sessions"]] == [sid]
    assert len(fake.requests) == 2, "a wait never calls the model"
    waited = await call(client, "wait", session_id=sid)
    assert waited == {"session_id": sid, "running": False, "answer": "Still 42."} and len(fake.requests) == 2


async def test_without_waiting_the_client_waits_interrupts_and_gets_clear_errors(
    fake: FakeProvider, runtime: Runtime, workdir: Path
) -> None:
    async with connect(runtime, workdir) as client:
        await _wait_interrupt_errors(client, fake, workdir)


async def _wait_interrupt_errors(client: Any, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "slow answer", "hold": True})
    started = await call(client, "start_session", prompt="take your time", wait=False)
    sid = started["session_id"]
    await fake.wait_for("held", timeout=30)
    waited = await call(client, "wait", session_id=sid, timeout_s=0.2)
    assert waited["running"] is True and waited["answer"] == ""
    stopped = await call(client, "interrupt", session_id=sid)
    assert stopped["session_id"] == sid
    fake.release()
    done = await call(client, "wait", session_id=sid, timeout_s=30)
    assert done["running"] is False
    log = await call(client, "read_log", session_id=sid)
    assert "session.execution.interrupted.1" in [e["type"] for e in log["events"]]

    assert "ses_nobody" in await error_of(client, "wait", session_id="ses_nobody")
    assert "absolute path" in await error_of(client, "start_session", prompt="x", location="relative/dir")
    assert "not a directory" in await error_of(client, "start_session", prompt="x", location=str(workdir / "no"))
    assert "empty" in await error_of(client, "send", session_id=sid, prompt="  ")
