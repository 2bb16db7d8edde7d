"""Lean context end to end: a session that reads many large files sends stubs for the old outputs in
later requests, while the log, its projections and the replay keep every output in full."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.store.tail import Synced
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

STEPS = 8
LINE = "x" * 79 + "\n"  # 200 lines: 16,000 characters, ~4,000 tokens per read


def _read(n: int) -> dict[str, Any]:
    return {"tool_calls": [{"id": f"call_{n}", "name": "read", "arguments": {"path": f"big{n}.txt"}}]}


def _tool_messages(body: dict[str, Any]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m.get("role") == "tool"}


async def _replayed_outputs(runtime: Runtime, sid: str) -> dict[str, str]:
    out = {}
    async for item in runtime.sessions.log(sid):
        if isinstance(item, Synced):
            break
        if isinstance(item.event, ev.ToolSucceeded):
            out[item.event.call_id] = item.event.output.text
    return out


@asynccontextmanager
async def _read_every_file(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock, context: dict[str, Any]
) -> AsyncIterator[tuple[Runtime, str]]:
    """A session that reads STEPS big files, one a step, then answers; the runtime stays open."""
    for n in range(STEPS):
        (workdir / f"big{n}.txt").write_text(f"file {n}\n" + LINE * 200)
    fake.add(*(_read(n) for n in range(STEPS)), {"text": "read them all"})
    async with await open_runtime(cli={"context": context}, tools="all", policy="allow", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "read every big file", resume=False)
        assert await runtime.sessions.run(sid) is None
        yield runtime, sid


async def test_old_outputs_are_stubs_in_the_request_and_whole_in_the_log(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    context = {"prune_protect_tokens": 8_000, "prune_minimum_tokens": 8_000}
    async with _read_every_file(open_runtime, fake, workdir, clock, context) as (runtime, sid):
        bodies = [request.body for request in fake.accepted]
        assert len(bodies) == STEPS + 1
        stubbed = [sorted(c for c, text in _tool_messages(b).items() if text.startswith("[pruned")) for b in bodies]
        # A read is ~4,400 tokens: the two newest (>= 8,000) are protected, and the cut waits until
        # two more (>= 8,000) lie behind them, then takes both: it moves every second step, not every step.
        calls = [f"call_{n}" for n in range(STEPS)]
        assert stubbed == [[], [], [], [], calls[:2], calls[:2], calls[:4], calls[:4], calls[:6]]
        last = _tool_messages(bodies[-1])
        assert "the output of this read call (path big0.txt)" in last["call_0"]
        assert "Call read again" in last["call_0"] and "file 0" not in last["call_0"]
        assert "file 7" in last["call_7"] and "file 6" in last["call_6"]
        # Cache friendliness: once a stub, the same stub in every later request.
        assert all(_tool_messages(b)["call_0"] == last["call_0"] for b in bodies[4:])

        projected = {call.call_id: call.output for call in await runtime._store.tool_calls(sid)}
        replayed = await _replayed_outputs(runtime, sid)
        for n in range(STEPS):
            assert f"file {n}" in projected[f"call_{n}"]["text"]  # type: ignore[index]
            assert replayed[f"call_{n}"] == projected[f"call_{n}"]["text"]  # type: ignore[index]
            assert len(replayed[f"call_{n}"]) > 16_000


async def test_prune_false_sends_every_output(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    context = {"prune": False, "prune_protect_tokens": 0, "prune_minimum_tokens": 1}
    async with _read_every_file(open_runtime, fake, workdir, clock, context):
        pass
    last = _tool_messages(fake.accepted[-1].body)
    assert len(last) == STEPS and not any("[pruned" in text for text in last.values())
