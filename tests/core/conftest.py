"""Store fixtures and a scripted session that exercises every durable event type."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.store.schema import PROJECTION_TABLES
from agent_tui.core.store.store import Store
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import CompactionReason, Delivery, ErrorType, InterruptReason, PermissionReply
from agent_tui.vocab.tool_output import ToolOutput
from agent_tui.vocab.usage import Usage


@pytest.fixture
def trusted_projects():
    """Project configs apply in full, as with ``--trust`` (tests of what they configure, not of trust)."""
    from agent_tui.core.settings import trust

    trust.assume(True)
    yield
    trust.assume(None)


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[Store]:
    """The facade on a SQLite file (``tests/core/store`` runs its ``store`` on both engines)."""
    opened = await Store.open(tmp_path / "store.db")
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def store(sqlite_store: Store) -> Store:
    return sqlite_store


def every_event_script(location: str, root: str) -> dict[str, list[ev.DurableEvent]]:
    """Two sessions whose events together cover ``events.DURABLE_EVENTS``."""
    rate = ErrorInfo(type=ErrorType.RATE_LIMIT, message="slow down", retry_after_ms=10)
    usage = Usage(input_tokens=120, output_tokens=30)
    plan = [{"content": "fix the parser", "status": "in_progress"}]
    main = [
        ev.SessionCreated(location=location, project_root=root),
        ev.PromptAdmitted(input_id="msg_u1", prompt=ev.text_prompt("Fix the parser bug\nin detail")),
        ev.InstructionsBaselined(baseline="You are helpful.", applied={"core/date": "2026-01-01"}),
        ev.ContextPut(key="api/ticket", value={"id": 7, "tags": ["a"]}),
        ev.PromptPromoted(input_id="msg_u1"),
        ev.ExecutionStarted(),
        ev.StepStarted(assistant_message_id="msg_a1", agent="build", model="m1"),
        ev.RetryScheduled(assistant_message_id="msg_a1", attempt=2, at_ms=5_000, error=rate),
        ev.StepStarted(assistant_message_id="msg_a1", agent="build", model="m1", attempt=2),
        ev.ReasoningStarted(assistant_message_id="msg_a1", ordinal=0),
        ev.ReasoningEnded(assistant_message_id="msg_a1", ordinal=0, text="think", provider_meta={"sig": "s"}),
        ev.TextStarted(assistant_message_id="msg_a1", ordinal=0),
        ev.TextEnded(assistant_message_id="msg_a1", ordinal=0, text="Looking at the parser"),
        ev.ToolCalled(assistant_message_id="msg_a1", call_id="call_1", name="bash", input={"command": "ls"}),
        ev.PermissionAsked(
            request_id="perm_1",
            assistant_message_id="msg_a1",
            call_id="call_1",
            action="bash",
            resources=["ls"],
            save=["ls*"],
        ),
        ev.PermissionReplied(request_id="perm_1", reply=PermissionReply.ALWAYS),
        ev.ElicitationAsked(
            request_id="ask_1",
            assistant_message_id="msg_a1",
            call_id="call_1",
            server="tables",
            message="Which day?",
            requested_schema={"type": "object", "properties": {"day": {"type": "string"}}},
        ),
        ev.ElicitationAnswered(request_id="ask_1", action="accept", content={"day": "friday"}),
        ev.SamplingAsked(
            request_id="sample_1",
            assistant_message_id="msg_a1",
            call_id="call_1",
            server="tables",
            system_prompt="Answer in one word.",
            messages=[{"role": "user", "text": "Which day?"}],
            max_tokens=16,
        ),
        ev.SamplingAnswered(request_id="sample_1", action="approve", text="Friday", model="m1", usage=usage, cost=0.01),
        ev.ToolSucceeded(assistant_message_id="msg_a1", call_id="call_1", output=ToolOutput(text="a.py")),
        ev.ToolCalled(
            assistant_message_id="msg_a1",
            call_id="call_2",
            name="read",
            input={"path": "x"},
            hosted=True,
            call_meta={"provider": {"id": "h1"}},
        ),
        ev.ToolFailed(
            assistant_message_id="msg_a1",
            call_id="call_2",
            error=ErrorInfo(type=ErrorType.TOOL_EXECUTION, message="no such file"),
            result_meta={"provider": {"id": "h2"}},
        ),
        ev.ToolCalled(assistant_message_id="msg_a1", call_id="call_3", name="todo", input={"items": plan}),
        ev.ToolSucceeded(
            assistant_message_id="msg_a1", call_id="call_3", output=ToolOutput(text="Plan", data={"plan": plan})
        ),
        ev.StepEnded(assistant_message_id="msg_a1", finish="tool_calls", usage=usage, cost=0.25),
        ev.StepStarted(assistant_message_id="msg_a2", agent="build", model="m1"),
        ev.StepFailed(assistant_message_id="msg_a2", error=ErrorInfo(type="aborted", message="stop"), usage=usage),
        ev.ExecutionFailed(error=ErrorInfo(type="aborted", message="stop")),
        ev.PromptAdmitted(input_id="msg_u2", prompt=ev.text_prompt("never mind"), delivery=Delivery.QUEUE),
        ev.QueueReordered(order=["msg_u2"]),
        ev.QueuePaused(paused=True),
        ev.PromptWithdrawn(input_id="msg_u2"),
        ev.ShellAdmitted(input_id="msg_sh1", command="ls"),
        ev.ShellEnded(input_id="msg_sh1", command="ls", output=ToolOutput(text="a.py")),
        ev.CompactionAdmitted(input_id="msg_c1"),
        ev.CompactionStarted(message_id="msg_c1", reason=CompactionReason.MANUAL, input_id="msg_c1"),
        ev.CompactionEnded(
            message_id="msg_c1",
            reason=CompactionReason.MANUAL,
            input_id="msg_c1",
            summary="## Objective\nparser",
            recent="user: fix",
        ),
        ev.CompactionStarted(message_id="msg_c2", reason=CompactionReason.AUTO),
        ev.CompactionFailed(
            message_id="msg_c2", reason=CompactionReason.AUTO, error=ErrorInfo(type="provider.internal", message="boom")
        ),
        ev.InstructionsUpdated(message_id="msg_s1", text="AGENTS.md changed", applied={"core/date": "2026-01-02"}),
        ev.ContextDeleted(key="api/ticket"),
        ev.InstructionsReset(),
        ev.SessionRenamed(title="Parser bug hunt"),
        ev.AgentSelected(agent="plan"),
        ev.ModelSelected(model="m2"),
        ev.ExecutionStarted(),
        ev.ExecutionSucceeded(),
        ev.ExecutionStarted(),
        ev.ExecutionInterrupted(reason=InterruptReason.USER),
        ev.SessionMoved(location=location + "/sub", project_root=root),
        ev.InstructionsBaselined(baseline="Moved.", applied={"core/environment": "sub"}),
        ev.ContextPut(key="api/owner", value="me"),
        ev.WorkspaceSnapshotted(assistant_message_id="msg_a2", call_id="call_9", snapshot_id="4b825dc6"),
        ev.WorkspaceSnapshotted(assistant_message_id="msg_a2", call_id="call_10", error="git is not installed"),
        ev.HookRan(hook_event="pre_tool", command="check.sh", outcome="blocked", exit_code=2, message="no"),
        ev.HookRan(
            hook_event="user_prompt", command="ctx.sh", outcome="ok", exit_code=0, context="ctx", message_id="msg_h1"
        ),
    ]
    main.extend(_rewinds(len(main)))
    child = [
        ev.SessionCreated(location=location, project_root=root, title="Child", parent_id="ses_main"),
        ev.SessionForked(parent_id="ses_main", parent_seq=5),
    ]
    spawned = [  # a subagent's session, started by a task call of ses_main
        ev.SessionCreated(
            location=location,
            project_root=root,
            title="Look around",
            spawned_by=ev.SpawnedBy(session_id="ses_main", assistant_message_id="msg_a2", call_id="call_t"),
        ),
        ev.PromptAdmitted(input_id="msg_s1", prompt=ev.text_prompt("look around")),
    ]
    return {"ses_main": main, "ses_child": child, "ses_spawned": spawned}


def _rewinds(head: int) -> list[ev.DurableEvent]:
    """A prompt and an answer, a queued input, a rewind to the prompt, its undo and the rewind again."""
    restored = ev.FilesRestored(target="t1", before="t0", changed=[ev.ChangedFile(path="a.py", change="modified")])
    return [
        ev.PromptAdmitted(input_id="msg_u3", prompt=ev.text_prompt("try again")),  # head + 1
        ev.PromptPromoted(input_id="msg_u3"),  # head + 2: the boundary
        ev.StepStarted(assistant_message_id="msg_a3", agent="build", model="m2"),
        ev.TextStarted(assistant_message_id="msg_a3", ordinal=0),
        ev.TextEnded(assistant_message_id="msg_a3", ordinal=0, text="tried"),
        ev.StepEnded(assistant_message_id="msg_a3", finish="stop"),
        ev.PromptAdmitted(input_id="msg_u4", prompt=ev.text_prompt("later"), delivery=Delivery.QUEUE),
        ev.SessionRewound(message_id="msg_u3", boundary_seq=head + 2, files=restored),  # head + 8
        ev.RewindUndone(rewind_seq=head + 8, files=restored),
        ev.SessionRewound(message_id="msg_u3", boundary_seq=head + 2, conversation=True),
        ev.InstructionsBaselined(baseline="After the rewind.", applied={"core/date": "2026-01-03"}),
    ]


@pytest.fixture
def publish_every_event() -> Callable[[Store, str], Awaitable[dict[str, list[ev.DurableEvent]]]]:
    async def publish(store: Store, location: str) -> dict[str, list[ev.DurableEvent]]:
        script = every_event_script(location, location)
        for session_id, script_events in script.items():
            for event in script_events:
                await store.publish(session_id, event)
        return script

    return publish


def snapshot(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every projection, in a stable order (search rows by their owner, not rowid)."""
    conn = sqlite3.connect(path)
    try:
        tables: dict[str, list[tuple[object, ...]]] = {}
        for table in PROJECTION_TABLES:
            if table in {"search", "search_doc"}:
                continue
            tables[table] = sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
        tables["search"] = sorted(
            conn.execute(
                "SELECT d.session_id, d.message_id, s.text FROM search s JOIN search_doc d ON d.id = s.rowid"
            ).fetchall()
        )
        return tables
    finally:
        conn.close()


@pytest.fixture
def projection_snapshot() -> Callable[[Path], dict[str, list[tuple[object, ...]]]]:
    return snapshot
