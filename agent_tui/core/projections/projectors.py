"""Apply one durable event to every projection, inside the caller's transaction.

:func:`project` is the single dispatch point, used both by ``publish`` and by
``rebuild``, so the live projections and a rebuild from ``event`` cannot
diverge. A projector that refuses an event raises :class:`EventRejected`;
the surrounding transaction then rolls back and nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from agent_tui.core.errors import EventRejected
from agent_tui.core.log import events as ev
from agent_tui.core.projections import inbox, plan, rewind, steps
from agent_tui.core.projections.fork import fork_from
from agent_tui.core.projections.message_rows import dumps, index_text, insert_message
from agent_tui.core.projections.sql import Conn
from agent_tui.vocab.kinds import PermissionReply


def project(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> None:
    for projector in _PROJECTORS:  # in order: the first that knows the event applies it
        if projector(conn, sid, seq, at, event):
            break
    else:
        raise EventRejected(f"no projector for {type(event).__name__}")
    conn.execute("UPDATE session SET head_seq = ?, updated = ? WHERE id = ?", (seq, at, sid))


def _session(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> bool:
    """The session row itself: created, renamed, its agent, model and place, a fork."""
    match event:
        case ev.SessionCreated():
            _created(conn, sid, at, event)
        case ev.SessionRenamed(title=title):
            conn.execute("UPDATE session SET title = ?, title_source = 'renamed' WHERE id = ?", (title, sid))
            index_text(conn, sid, "", title)
        case ev.AgentSelected(agent=agent):
            conn.execute("UPDATE session SET agent = ? WHERE id = ?", (agent, sid))
        case ev.ModelSelected(model=model):
            conn.execute("UPDATE session SET model = ? WHERE id = ?", (model, sid))
        case ev.SessionMoved(location=location, project_root=root):
            conn.execute("UPDATE session SET location = ?, project_root = ? WHERE id = ?", (location, root, sid))
            conn.execute("DELETE FROM instruction_checkpoint WHERE session_id = ?", (sid,))
        case ev.SessionForked(parent_id=parent, parent_seq=point):
            fork_from(conn, sid, parent, point)
        case _:
            return False
    return True


def _input(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> bool:
    """The inbox: prompts, the queue, ``!`` commands, compactions."""
    match event:
        case ev.PromptAdmitted():
            inbox.prompt_admitted(conn, sid, seq, at, event)
        case ev.PromptPromoted():
            inbox.prompt_promoted(conn, sid, seq, at, event)
        case ev.PromptWithdrawn():
            inbox.prompt_withdrawn(conn, sid, seq, event)
        case ev.QueueReordered():
            inbox.queue_reordered(conn, sid, event)
        case ev.QueuePaused(paused=paused):
            conn.execute(
                "INSERT INTO queue_state (session_id, paused) VALUES (?, ?)"
                " ON CONFLICT (session_id) DO UPDATE SET paused = excluded.paused",
                (sid, int(paused)),
            )
        case ev.ShellAdmitted():
            inbox.shell_admitted(conn, sid, seq, at, event)
        case ev.ShellEnded():
            inbox.shell_ended(conn, sid, seq, at, event)
        case ev.CompactionAdmitted():
            inbox.compaction_admitted(conn, sid, seq, at, event)
        case ev.CompactionStarted() | ev.CompactionEnded() | ev.CompactionFailed():
            inbox.compaction_progress(conn, sid, seq, at, event)
            steps.compaction_spent(conn, sid, seq, at, event)
        case _:
            return False
    return True


def _context(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> bool:
    """Context entries, instruction checkpoints and permission requests."""
    match event:
        case ev.ContextPut(key=key, value=value):
            conn.execute(
                "INSERT INTO context_entry (session_id, key, value_json) VALUES (?, ?, ?)"
                " ON CONFLICT (session_id, key) DO UPDATE SET value_json = excluded.value_json",
                (sid, key, dumps(value)),
            )
        case ev.ContextDeleted(key=key):
            conn.execute("DELETE FROM context_entry WHERE session_id = ? AND key = ?", (sid, key))
        case ev.InstructionsBaselined(baseline=baseline, applied=applied):
            conn.execute(
                "INSERT INTO instruction_checkpoint (session_id, baseline, baseline_seq, applied_json)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET baseline = excluded.baseline,"
                " baseline_seq = excluded.baseline_seq, applied_json = excluded.applied_json",
                (sid, baseline, seq, dumps(applied)),
            )
        case ev.InstructionsReset():
            conn.execute("DELETE FROM instruction_checkpoint WHERE session_id = ?", (sid,))
        case ev.InstructionsUpdated(message_id=mid, text=text, applied=applied, source=source):
            data = {"text": text, **({"source": source} if source else {})}
            insert_message(conn, id=mid, session_id=sid, seq=seq, kind="system", data=data, created=at)
            index_text(conn, sid, mid, text)
            conn.execute(
                "UPDATE instruction_checkpoint SET applied_json = ? WHERE session_id = ?", (dumps(applied), sid)
            )
        case ev.HookRan(message_id=str() as mid, context=str() as text):  # what the model reads of a hook
            data = {"text": text, "source": "hook"}
            insert_message(conn, id=mid, session_id=sid, seq=seq, kind="system", data=data, created=at)
            index_text(conn, sid, mid, text)
        case ev.HookRan():
            pass  # history only: the transcript shows it from the log
        case ev.PermissionAsked():
            _asked(conn, sid, seq, at, event)
        case ev.PermissionReplied():
            _replied(conn, sid, seq, at, event)
        case _:
            return False
    return True


def _mcp_asks(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> bool:
    """MCP servers' questions and sampling requests: history only (each lives while its tool call
    does), but what an approved sampling request spent is booked like a step's."""
    match event:
        case ev.ElicitationAsked() | ev.ElicitationAnswered() | ev.SamplingAsked():
            pass
        case ev.SamplingAnswered():
            steps.sampling_spent(conn, sid, seq, at, event)
        case _:
            return False
    return True


def _steps(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> bool:
    """Steps and their parts, tool calls, the end of a run, rewinds; and the events that are history only."""
    match event:
        case ev.StepStarted():
            steps.step_started(conn, sid, seq, at, event)
        case ev.TextStarted() | ev.TextEnded() | ev.ReasoningStarted() | ev.ReasoningEnded():
            steps.fragment(conn, sid, at, event)
        case ev.ToolCalled():
            steps.tool_called(conn, sid, seq, at, event)
        case ev.ToolSucceeded():
            steps.tool_settled(conn, sid, at, event)
            plan.plan_settled(conn, sid, seq, event)
        case ev.ToolFailed():
            steps.tool_settled(conn, sid, at, event)
        case ev.StepEnded() | ev.StepFailed() | ev.RetryScheduled():
            steps.step_closed(conn, sid, seq, at, event)
        case ev.ExecutionFailed() | ev.ExecutionInterrupted():
            steps.clear_retries(conn, sid, at)
        case ev.SessionRewound(conversation=True, boundary_seq=boundary):
            rewind.hide_from(conn, sid, seq, boundary)
        case ev.RewindUndone(rewind_seq=rewound):
            _check_undo(conn, sid, seq, rewound)
            rewind.replay_without(conn, sid, seq, rewound, project)
        case ev.SessionRewound() | ev.WorkspaceSnapshotted():
            pass  # history only: the snapshot ids and file restores are read from the log
        case ev.ExecutionStarted() | ev.ExecutionSucceeded() | ev.UnknownEvent():
            pass  # history only: liveness comes from active(), never from the log
        case _:
            return False
    return True


_PROJECTORS: tuple[Callable[[Conn, str, int, int, ev.DurableEvent], bool], ...] = (
    _session,
    _input,
    _context,
    _mcp_asks,
    _steps,
)


def _created(conn: Conn, sid: str, at: int, e: ev.SessionCreated) -> None:
    conn.execute(
        "INSERT INTO session (id, title, title_source, location, project_root, agent, model,"
        " parent_id, created, updated, spawned_by, spawned_message_id, spawned_call_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            sid,
            e.title,
            "created" if e.title else None,
            e.location,
            e.project_root,
            e.agent,
            e.model,
            e.parent_id,
            at,
            at,
            *(
                (e.spawned_by.session_id, e.spawned_by.assistant_message_id, e.spawned_by.call_id)
                if e.spawned_by is not None
                else (None, None, None)
            ),
        ),
    )
    if e.title:
        index_text(conn, sid, "", e.title)


def _check_undo(conn: Conn, sid: str, seq: int, rewind_seq: int) -> None:
    row = conn.execute("SELECT type FROM event WHERE session_id = ? AND seq = ?", (sid, rewind_seq)).fetchone()
    if row is None or row[0] != ev.SessionRewound.TYPE:
        raise EventRejected(f"event {rewind_seq} of session {sid} is not a rewind")
    undos = conn.execute(  # few rows: the undos between the rewind and now, read in Python on both engines
        "SELECT data_json FROM event WHERE session_id = ? AND type = ? AND seq > ? AND seq < ?",
        (sid, ev.RewindUndone.TYPE, rewind_seq, seq),
    ).fetchall()
    if any(json.loads(data).get("rewind_seq") == rewind_seq for (data,) in undos):
        raise EventRejected(f"the rewind at {sid}#{rewind_seq} was already undone")


def _asked(conn: Conn, sid: str, seq: int, at: int, e: ev.PermissionAsked) -> None:
    if conn.execute("SELECT 1 FROM permission_request WHERE request_id = ?", (e.request_id,)).fetchone():
        raise EventRejected(f"permission request {e.request_id} was already asked")
    conn.execute(
        "INSERT INTO permission_request (request_id, session_id, seq, assistant_message_id, call_id,"
        " action, resources_json, save_json, detail_json, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            e.request_id,
            sid,
            seq,
            e.assistant_message_id,
            e.call_id,
            e.action,
            dumps(e.resources),
            dumps(e.save),
            dumps(e.detail),
            at,
        ),
    )


def _replied(conn: Conn, sid: str, seq: int, at: int, e: ev.PermissionReplied) -> None:
    row = conn.execute(
        "SELECT action, save_json, reply FROM permission_request WHERE request_id = ? AND session_id = ?",
        (e.request_id, sid),
    ).fetchone()
    if row is None:
        raise EventRejected(f"unknown permission request {e.request_id}")
    action, save_json, reply = row
    if reply is not None:
        raise EventRejected(f"permission request {e.request_id} was already answered ({reply})")
    conn.execute(
        "UPDATE permission_request SET reply = ?, message = ?, replied_seq = ? WHERE request_id = ?",
        (e.reply.value, e.message, seq, e.request_id),
    )
    if e.reply == PermissionReply.ALWAYS:
        (root,) = conn.execute("SELECT project_root FROM session WHERE id = ?", (sid,)).fetchone()
        for pattern in json.loads(save_json):
            conn.execute(
                "INSERT INTO permission_approval (project_root, action, pattern, created) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (project_root, action, pattern) DO UPDATE SET created = excluded.created"
                " WHERE excluded.created > permission_approval.created",  # the newest "always" counts
                (root, action, pattern, at),
            )
