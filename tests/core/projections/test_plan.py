"""The live plan as a projection: real runs against the fake provider, a real SQLite file.

The plan follows the ``todo`` calls that succeeded; a rebuild from the events
gives the same rows; a rewind to before a call brings the earlier plan back
(an undo restores it); a fork copies the plan of its point; a new runtime on
the same file (a resume) reads the same plan.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log.records import PlanRecord
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from ..run.runner.conftest import settle

FIRST = [{"content": "read the parser", "status": "in_progress"}, {"content": "fix the bug", "status": "pending"}]
SECOND = [{"content": "read the parser", "status": "done"}, {"content": "fix the bug", "status": "in_progress"}]
TWO_AT_ONCE = [{"content": "read the parser", "status": "in_progress"}, {"content": "fix", "status": "in_progress"}]


def _todo(call_id: str, items: list[dict[str, str]]) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "todo", "arguments": {"items": items}}]}


async def _turn(runtime: Runtime, sid: str, text: str) -> str:
    receipt = await runtime.sessions.prompt(sid, text)
    await settle(runtime, sid)
    return receipt.input_id


def _items(plan: PlanRecord) -> list[dict[str, str]]:
    return [item.model_dump(mode="json") for item in plan.items]


async def _two_plans(runtime: Runtime, fake: FakeProvider, workdir: Path) -> tuple[str, str, str]:
    """A session whose first prompt writes FIRST and whose second writes SECOND, then fails a third."""
    fake.add(
        _todo("call_1", FIRST),
        {"text": "started"},
        _todo("call_2", SECOND),
        _todo("call_3", TWO_AT_ONCE),
        {"text": "going on"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    first = await _turn(runtime, sid, "plan it")
    second = await _turn(runtime, sid, "go on")
    return sid, first, second


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(policy="deny", tools="all") as opened:
        yield opened


async def test_the_plan_is_the_newest_successful_todo_call_and_a_rebuild_agrees(
    runtime: Runtime, fake: FakeProvider, workdir: Path, projection_snapshot: Any
) -> None:
    sid = (await runtime.sessions.create(location=workdir)).id
    assert await runtime.sessions.plan(sid) == PlanRecord(session_id=sid)
    sid, _, _ = await _two_plans(runtime, fake, workdir)
    plan = await runtime.sessions.plan(sid)
    assert _items(plan) == SECOND and plan.call_id == "call_2" and plan.open
    calls = {c.call_id: c.state for c in await runtime._store.tool_calls(sid)}
    assert calls == {"call_1": "success", "call_2": "success", "call_3": "failed"}, "the policy denies nothing here"
    live = projection_snapshot(runtime.sessions.database)
    assert len(live["plan_update"]) == 2
    await runtime.sessions.rebuild()
    assert projection_snapshot(runtime.sessions.database) == live
    assert await runtime.sessions.plan(sid) == plan


async def test_a_rewind_brings_back_the_plan_before_it_and_an_undo_the_later_one(
    runtime: Runtime, fake: FakeProvider, workdir: Path, projection_snapshot: Any
) -> None:
    sid, first, second = await _two_plans(runtime, fake, workdir)
    await runtime.sessions.rewind(sid, second, "conversation")
    assert _items(await runtime.sessions.plan(sid)) == FIRST
    live = projection_snapshot(runtime.sessions.database)
    await runtime.sessions.rebuild()
    assert projection_snapshot(runtime.sessions.database) == live
    await runtime.sessions.undo_rewind(sid)
    assert _items(await runtime.sessions.plan(sid)) == SECOND
    await runtime.sessions.rewind(sid, first, "conversation")
    assert await runtime.sessions.plan(sid) == PlanRecord(session_id=sid)


async def test_a_fork_copies_the_plan_of_its_point(runtime: Runtime, fake: FakeProvider, workdir: Path) -> None:
    sid, _, second = await _two_plans(runtime, fake, workdir)
    at_head = await runtime.sessions.fork(sid)
    before_second = await runtime.sessions.fork(sid, at=second)
    assert _items(await runtime.sessions.plan(at_head.id)) == SECOND
    assert _items(await runtime.sessions.plan(before_second.id)) == FIRST
    await runtime.sessions.delete(at_head.id)
    await runtime.sessions.delete(before_second.id)
    assert _items(await runtime.sessions.plan(sid)) == SECOND, "the parent keeps its own rows"


async def test_a_resumed_session_reads_the_same_plan(open_runtime: Any, fake: FakeProvider, workdir: Path) -> None:
    async with await open_runtime(policy="deny", tools="all") as first_process:
        sid, _, _ = await _two_plans(first_process, fake, workdir)
    async with await open_runtime(policy="deny", tools="all") as second_process:
        plan = await second_process.sessions.plan(sid)
        assert _items(plan) == SECOND and plan.call_id == "call_2"
