"""The ``task`` tool: a child session per call, its answer as the call's result (issue 25, "Subagents")."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.kinds import ApprovalMode
from tests.routed_fake import Routes, first_prompt, task_call
from tests.waiting import until

from .conftest import kinds, of_type, settle, stored


@pytest.fixture
def fake(routed_fake: FakeProvider) -> FakeProvider:
    return routed_fake


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


async def test_a_child_session_answers_the_parents_task_call(
    runtime: Runtime, routes: Routes, fake: FakeProvider, workdir
) -> None:
    routes.add(
        "PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: find the answer")]}, {"text": "the child said 42"}
    )
    routes.add("CHILD-A", {"tool_calls": [{"id": "c1", "name": "echo", "arguments": {"text": "x"}}]}, {"text": "42"})
    parent = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(parent, "PARENT: ask a child")
    await settle(runtime, parent, timeout=30)

    log = await stored(runtime, parent)
    assert kinds(log)[-1] == "execution.succeeded"
    (result,) = of_type(log, ev.ToolSucceeded)
    child = result.output.data["session_id"]
    assert result.output.text == f"42\n\nsession_id: {child}"
    assert result.result_meta["session_id"] == child

    record = await runtime.sessions.get(child)
    called = of_type(log, ev.ToolCalled)[0]
    assert (record.spawned_by, record.spawned_message_id, record.spawned_call_id) == (
        parent,
        called.assistant_message_id,
        "call_t",
    )
    assert record.parent_id is None  # not a fork
    assert (record.title, record.agent, record.location) == ("look something up", "general", str(workdir))
    child_log = await stored(runtime, child)
    created = child_log[0].event
    assert isinstance(created, ev.SessionCreated) and created.spawned_by is not None
    assert created.spawned_by.call_id == "call_t"
    assert kinds(child_log)[:3] == ["created", "prompt.admitted", "execution.started"]
    assert kinds(child_log)[-1] == "execution.succeeded"
    assert [e.output.text for e in of_type(child_log, ev.ToolSucceeded)] == ["x"]
    assert not of_type(log, ev.ToolCalled)[1:], "the child's calls are in its own log, not the parent's"

    assert [s.id for s in await runtime.sessions.children(parent)] == [child]
    assert [s.id for s in await runtime.sessions.list(top_level=True)] == [parent]
    assert {s.id for s in await runtime.sessions.list()} == {parent, child}
    assert (await runtime.sessions.latest(workdir)).id == parent  # --continue never lands in a child

    transcript = await runtime.sessions.transfer.export(parent, "markdown")
    assert transcript.index("PARENT: ask a child") < transcript.index(f"`{child}`")  # the child's follows
    assert "# look something up" in transcript and "CHILD-A: find the answer" in transcript

    child_requests = [r.body for r in fake.accepted if "CHILD-A" in first_prompt(r.body)]
    assert child_requests and all("task" not in tool_names(b) for b in child_requests), "no recursion by default"
    parent_first = next(r.body for r in fake.accepted if "PARENT" in first_prompt(r.body))
    assert "task" in tool_names(parent_first)


async def test_two_children_run_at_once(runtime: Runtime, routes: Routes, fake: FakeProvider, workdir) -> None:
    routes.add(
        "PARENT",
        {"tool_calls": [task_call("call_a", "CHILD-A: one"), task_call("call_b", "CHILD-B: two")]},
        {"text": "both answered"},
    )
    routes.add("CHILD-A", {"text": "answer A", "hold": True})
    routes.add("CHILD-B", {"text": "answer B", "hold": True})
    parent = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(parent, "PARENT: two children")
    await fake.wait_for("held", 2, timeout=30)  # both children's requests are in flight at once
    active = runtime.sessions.active()
    children = await runtime.sessions.children(parent)
    assert len(children) == 2
    assert all(active[c.id] == {"type": "running", "parent": parent} for c in children)
    assert active[parent] == {"type": "running"}
    fake.release(2)
    await settle(runtime, parent, timeout=30)
    log = await stored(runtime, parent)
    texts = {e.call_id: e.output.text.split("\n\n")[0] for e in of_type(log, ev.ToolSucceeded)}
    assert texts == {"call_a": "answer A", "call_b": "answer B"}
    assert {c.spawned_call_id for c in children} == {"call_a", "call_b"}
    assert not {c.id for c in children} & set(runtime.sessions.active())


async def test_interrupting_the_parent_interrupts_the_child(
    runtime: Runtime, routes: Routes, fake: FakeProvider, workdir
) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: block")]}, {"text": "unused"})
    routes.add("CHILD-A", {"tool_calls": [{"id": "b1", "name": "block", "arguments": {"label": "child"}}]})
    parent = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(parent, "PARENT: start a blocking child")

    async def child_blocking() -> str | None:
        for child in await runtime.sessions.children(parent):
            if any(c.state == "running" for c in await runtime._store.tool_calls(child.id)):
                return child.id
        return None

    child = await until(child_blocking, "the child blocking in its tool", timeout=15)
    await runtime.sessions.interrupt(parent)

    child_log = await stored(runtime, child)
    assert kinds(child_log)[-3:] == ["tool.failed", "step.failed", "execution.interrupted"]
    assert of_type(child_log, ev.StepFailed)[-1].error.type == "aborted"
    assert child not in runtime.sessions.active()
    log = await stored(runtime, parent)
    (failed,) = of_type(log, ev.ToolFailed)
    assert failed.call_id == "call_t" and failed.error.type == "aborted"
    assert kinds(log)[-1] == "execution.interrupted"


async def test_a_failed_child_is_a_tool_error_with_its_session(
    runtime: Runtime, routes: Routes, fake: FakeProvider, workdir
) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: fail")]}, {"text": "the child failed"})
    routes.add("CHILD-A", {"error": {"status": 400, "kind": "invalid_request", "message": "bad child request"}})
    parent = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(parent, "PARENT: a failing child")
    await settle(runtime, parent, timeout=30)
    log = await stored(runtime, parent)
    (failed,) = of_type(log, ev.ToolFailed)
    child = failed.result_meta["session_id"]
    assert failed.error.type == "subagent.failed"
    assert failed.error.message.startswith("The general subagent failed: ")
    assert "bad child request" in failed.error.message
    assert failed.error.message.endswith(f"session_id: {child}")
    assert kinds(await stored(runtime, child))[-1] == "execution.failed"
    assert kinds(log)[-1] == "execution.succeeded"  # the parent read the failure and answered


async def test_an_unknown_agent_lists_the_subagents(
    runtime: Runtime, routes: Routes, fake: FakeProvider, workdir
) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: x", agent="nobody")]}, {"text": "ok"})
    parent = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(parent, "PARENT: unknown agent")
    await settle(runtime, parent, timeout=30)
    (failed,) = of_type(await stored(runtime, parent), ev.ToolFailed)
    assert failed.error.message == "Unknown subagent 'nobody'. Subagents: explore, general."
    assert await runtime.sessions.children(parent) == []


@pytest.mark.parametrize("settings_overrides", [{"permission": [{"action": "task", "pattern": "*", "effect": "deny"}]}])
async def test_a_deny_rule_hides_the_task_tool(runtime: Runtime, routes: Routes, fake: FakeProvider, workdir) -> None:
    routes.add("PARENT", {"text": "no tools"})
    parent = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(parent, "PARENT: hello")
    await settle(runtime, parent, timeout=30)
    assert "task" not in tool_names(fake.accepted[0].body)


async def test_a_subagent_works_in_the_approval_mode_chosen_for_its_parent(
    open_runtime: Any, routes: Routes, fake: FakeProvider, workdir
) -> None:
    patch = "*** Begin Patch\n*** Add File: by-child.txt\n+child\n*** End Patch"
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-E: write the file")]}, {"text": "written"})
    routes.add(
        "CHILD-E", {"tool_calls": [{"id": "c1", "name": "apply_patch", "arguments": {"patch": patch}}]}, {"text": "ok"}
    )
    async with await open_runtime(cli={"approval": "ask"}, policy="deny", tools="all") as runtime:
        parent = (await runtime.sessions.create(location=workdir)).id
        runtime.sessions.choose_approval(parent, ApprovalMode.AUTO_EDIT)
        await runtime.sessions.prompt(parent, "PARENT: delegate the edit")
        await settle(runtime, parent, timeout=30)
        (child,) = [s.id for s in await runtime.sessions.children(parent)]
        child_log = await stored(runtime, child)
    assert (workdir / "by-child.txt").read_text() == "child\n"
    assert not of_type(child_log, ev.PermissionAsked)
