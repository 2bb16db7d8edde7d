"""Forks through the facade: the copied history, checkpoint and entries, and nothing shared afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.errors import UnknownSession
from agent_tui.core.history.rewind import UnknownMessage
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from ..run.runner.conftest import stored
from .test_rewind import _text, _turn


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(policy="allow", tools="all") as opened:
        yield opened


def _shape(messages: list[Any]) -> list[tuple[str, int, Any]]:
    return [(m.kind, m.seq, m.data) for m in messages]


async def test_a_fork_inherits_history_checkpoint_and_entries_and_shares_nothing_after(
    runtime: Runtime, fake: FakeProvider, workdir: Path, projection_snapshot: Any
) -> None:
    (workdir / "AGENTS.md").write_text("Rule one.\n")
    fake.add({"text": "first answer"}, {"text": "fork answer"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.context_entries.put(sid, "api/ticket", {"id": 7})
    await _turn(runtime, sid, "first question")
    parent_checkpoint = await runtime._store.checkpoint(sid)
    parent_messages = await runtime.sessions.messages(sid)

    child = await runtime.sessions.fork(sid)
    assert child.parent_id == sid and child.id != sid
    log = await stored(runtime, child.id)
    assert [type(e.event) for e in log] == [ev.SessionCreated, ev.SessionForked]
    assert log[0].seq == (await runtime.sessions.get(sid)).head_seq + 1, "the fork continues its parent's seqs"
    assert _shape(await runtime.sessions.messages(child.id)) == _shape(parent_messages)
    assert {m.id for m in await runtime.sessions.messages(child.id)}.isdisjoint({m.id for m in parent_messages})
    child_checkpoint = await runtime._store.checkpoint(child.id)
    assert (child_checkpoint.baseline, child_checkpoint.applied) == (
        parent_checkpoint.baseline,
        parent_checkpoint.applied,
    )
    assert await runtime.sessions.context_entries.read(child.id) == {"api/ticket": {"id": 7}}
    assert await runtime.sessions.lineage(child.id) == [(sid, log[0].seq - 1)]

    (workdir / "AGENTS.md").write_text("Rule two.\n")
    await _turn(runtime, child.id, "fork question")
    sent = [(m["role"], _text(m.get("content"))) for m in fake.accepted[-1].body["messages"] if m["role"] != "system"]
    assert sent[:2] == [("user", "first question"), ("assistant", "first answer")]
    assert sent[-1] == ("user", "fork question") and "Rule two." in sent[-2][1]
    assert await runtime._store.checkpoint(sid) == parent_checkpoint, "the parent's checkpoint is its own"
    assert _shape(await runtime.sessions.messages(sid)) == _shape(parent_messages)
    await runtime.sessions.context_entries.put(child.id, "api/ticket", {"id": 8})
    assert await runtime.sessions.context_entries.read(sid) == {"api/ticket": {"id": 7}}

    live = projection_snapshot(runtime.sessions.database)
    await runtime.sessions.rebuild()
    assert projection_snapshot(runtime.sessions.database) == live


async def test_a_fork_from_a_prompt_starts_before_it_with_a_fresh_checkpoint(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add({"text": "one"}, {"text": "two"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await _turn(runtime, sid, "first")
    second = await _turn(runtime, sid, "second")
    child = await runtime.sessions.fork(sid, at=second)
    kept = [
        m for m in await runtime.sessions.messages(sid) if m.seq < (await runtime._store.message_anywhere(second)).seq
    ]
    assert _shape(await runtime.sessions.messages(child.id)) == _shape(kept)
    assert await runtime._store.checkpoint(child.id) is None, "a fork from an earlier prompt is a revert"
    other = (await runtime.sessions.create(location=workdir)).id
    with pytest.raises(UnknownMessage, match=f"belongs to session {sid}"):
        await runtime.sessions.fork(other, at=second)
    with pytest.raises(UnknownSession):
        await runtime.sessions.fork("ses_nope")


async def test_a_file_rewind_in_a_fork_finds_the_snapshot_in_its_parent(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add(
        {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "echo x > made.txt"}}]}, {"text": "made"}
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await _turn(runtime, sid, "make it")
    parent_messages = await runtime.sessions.messages(sid)
    child = await runtime.sessions.fork(sid)
    copied = next(m for m in await runtime.sessions.messages(child.id) if m.kind == "user")
    result = await runtime.sessions.rewind(child.id, copied.id, "both")
    assert [(c.path, c.change) for c in result.changed] == [("made.txt", "deleted")]
    assert not (workdir / "made.txt").exists()
    assert await runtime.sessions.messages(child.id) == []
    assert await runtime.sessions.messages(sid) == parent_messages, "the parent keeps its history"
