"""The client's side of MCP in real runs: a real SDK server's progress reaches the running tool's live output
(and is not stored), and what it logs stays off the transcript unless at error level (then one notice)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.commands.run_cmd import _mcp_notice
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from .conftest import of_type, settle, stored

PROTOCOL = Path(__file__).resolve().parents[3] / "fakes" / "mcp_protocol.py"


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


@pytest.fixture
async def proto_runtime(open_runtime: Any, clock: ManualClock) -> AsyncIterator[Runtime]:
    server = {"command": [sys.executable, str(PROTOCOL)], "startup_timeout_s": 60}
    async with await open_runtime(cli={"mcp": {"servers": {"proto": server}}}, policy="allow", clock=clock) as opened:
        yield opened


async def test_progress_during_a_call_is_live_output_of_its_tool_and_is_not_stored(
    proto_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add(_call("call_1", "mcp__proto__count", {"steps": 3}), {"text": "done"})
    sid = (await proto_runtime.sessions.create(location=workdir)).id
    live: list[ev.ToolOutputDelta] = []
    with proto_runtime.sessions.subscribe(sid) as deltas:
        await proto_runtime.sessions.prompt(sid, "count")

        async def three() -> None:
            async for item in deltas:
                if isinstance(item, ev.ToolOutputDelta):
                    live.append(item)
                    if len(live) == 3:
                        return

        await asyncio.wait_for(three(), 60)
    await settle(proto_runtime, sid, timeout=60)
    assert {d.call_id for d in live} == {"call_1"}
    assert "".join(d.delta for d in live) == "progress 1/3: step 1\nprogress 2/3: step 2\nprogress 3/3: step 3\n"
    log = await stored(proto_runtime, sid)
    (done,) = of_type(log, ev.ToolSucceeded)
    assert done.output.text == "counted to 3"
    assert not any("progress 1/3" in e.event.model_dump_json() for e in log)


async def test_log_messages_are_kept_for_the_server_and_only_an_error_is_a_notice(
    proto_runtime: Runtime, fake: FakeProvider, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    told: set[str] = set()
    proto_runtime.watch_mcp(lambda server: _mcp_notice(server, told))  # as `agent-tui run` does
    fake.add(_call("call_1", "mcp__proto__chatter", {"levels": ["info", "warning", "error"]}), {"text": "done"})
    sid = (await proto_runtime.sessions.create(location=workdir)).id
    await proto_runtime.sessions.prompt(sid, "chatter")
    await settle(proto_runtime, sid, timeout=60)
    (status,) = [s for s in proto_runtime.mcp_status() if Path(s.location) == workdir.resolve()]
    assert [(e.level, e.text) for e in status.logs] == [
        ("info", "info message from chatter"),
        ("warning", "warning message from chatter"),
        ("error", "error message from chatter"),
    ]
    assert capsys.readouterr().err.splitlines() == [
        "agent-tui: MCP server proto logged error: error message from chatter"
    ]
    log = await stored(proto_runtime, sid)
    assert not any("message from chatter" in e.event.model_dump_json() for e in log)
