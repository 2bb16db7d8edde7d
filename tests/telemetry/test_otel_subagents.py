"""A subagent's telemetry (issue 30): its turn runs inside the parent's ``task`` call, in the same trace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.routed_fake import Routes, task_call


@pytest.fixture
def fake(routed_fake: FakeProvider) -> FakeProvider:
    return routed_fake


async def test_a_subagents_turn_is_a_child_of_its_parents_task_call(
    open_runtime: Any, routes: Routes, workdir: Path, collector: OtlpReceiver
) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: find the answer")]}, {"text": "it is 42"})
    routes.add("CHILD-A", {"text": "42"})
    telemetry = {"telemetry": {"otlp_endpoint": collector.endpoint}}
    async with await open_runtime(cli=telemetry, policy="allow", tools="all") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "PARENT: ask a child", resume=False)
        assert await runtime.sessions.run(sid) is None
    (task,) = collector.named("execute_tool task")
    turns = collector.named("invoke_agent ")
    (child,) = [turn for turn in turns if turn.attributes["session.id"] != sid]
    (parent,) = [turn for turn in turns if turn.attributes["session.id"] == sid]
    assert task.parent_span_id == parent.span_id and child.parent_span_id == task.span_id
    assert len(collector.named("chat ")) == 3  # the parent's two, the child's one
    assert {span.trace_id for span in collector.spans} == {parent.trace_id}  # one trace
