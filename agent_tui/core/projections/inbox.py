"""Projectors for the durable inbox: admitted prompts and compaction barriers.

An admitted prompt is an inbox row only; ``prompt.promoted`` writes the
visible user message and marks the row in the same transaction. A manual
compaction is an inbox row plus a ``queued`` compaction divider whose id is
the input id; ``compaction.started`` turns it into the running divider.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from agent_tui.core.errors import EventRejected, UnknownInput
from agent_tui.core.log import events as ev
from agent_tui.core.projections.message_rows import (
    delete_message,
    dumps,
    index_text,
    insert_message,
    load_message,
    save_message,
    set_last_message,
)
from agent_tui.core.projections.sql import Conn
from agent_tui.vocab.titles import prompt_title


def fingerprint(session_id: str, kind: str, prompt: list[Any] | None, delivery: str | None) -> str:
    """What makes two admissions "the same": session, kind, prompt and delivery."""
    parts = [p.model_dump(mode="json") if hasattr(p, "model_dump") else p for p in prompt or []]
    body = dumps({"session": session_id, "kind": kind, "prompt": parts, "delivery": delivery})
    return hashlib.sha256(body.encode()).hexdigest()


def title_from(prompt: list[Any]) -> str | None:
    return prompt_title(ev.prompt_text(prompt))


def _input(conn: Conn, sid: str, input_id: str) -> tuple[Any, ...]:
    row: tuple[Any, ...] | None = conn.execute(
        "SELECT kind, promoted_seq, withdrawn, prompt_json, delivery, settled_seq FROM session_input"
        " WHERE id = ? AND session_id = ?",
        (input_id, sid),
    ).fetchone()
    if row is None:
        raise UnknownInput(f"unknown input {input_id} in session {sid}")
    return row


def prompt_admitted(conn: Conn, sid: str, seq: int, at: int, e: ev.PromptAdmitted) -> None:
    if conn.execute("SELECT 1 FROM session_input WHERE id = ?", (e.input_id,)).fetchone():
        raise EventRejected(f"input {e.input_id} was already admitted")
    prompt = [p.model_dump(mode="json") for p in e.prompt]
    conn.execute(
        "INSERT INTO session_input (id, session_id, kind, delivery, prompt_json, fingerprint,"
        " admitted_seq, created) VALUES (?, ?, 'prompt', ?, ?, ?, ?, ?)",
        (
            e.input_id,
            sid,
            e.delivery.value,
            dumps(prompt),
            fingerprint(sid, "prompt", prompt, e.delivery.value),
            seq,
            at,
        ),
    )
    title = title_from(e.prompt)
    if title is not None:
        changed = conn.execute(
            "UPDATE session SET title = ?, title_source = 'prompt' WHERE id = ? AND title_source IS NULL",
            (title, sid),
        ).rowcount
        if changed:
            index_text(conn, sid, "", title)


def prompt_promoted(conn: Conn, sid: str, seq: int, at: int, e: ev.PromptPromoted) -> None:
    kind, promoted, withdrawn, prompt_json, delivery, _ = _input(conn, sid, e.input_id)
    if kind != "prompt" or promoted is not None or withdrawn:
        state = "withdrawn" if withdrawn else "promoted" if promoted is not None else kind
        raise EventRejected(f"cannot promote input {e.input_id}: it is {state}")
    conn.execute("UPDATE session_input SET promoted_seq = ?, settled_seq = ? WHERE id = ?", (seq, seq, e.input_id))
    prompt = json.loads(prompt_json)
    insert_message(
        conn,
        id=e.input_id,
        session_id=sid,
        seq=seq,
        kind="user",
        data={"prompt": prompt, "delivery": delivery},
        created=at,
    )
    text = ev.prompt_text(prompt)
    index_text(conn, sid, e.input_id, text)
    set_last_message(conn, sid, text)


def prompt_withdrawn(conn: Conn, sid: str, seq: int, e: ev.PromptWithdrawn) -> None:
    kind, promoted, withdrawn, *_ = _input(conn, sid, e.input_id)
    if promoted is not None or withdrawn:
        raise EventRejected(
            f"cannot withdraw input {e.input_id}: it is already {'withdrawn' if withdrawn else 'promoted'}"
        )
    conn.execute("UPDATE session_input SET withdrawn = 1, settled_seq = ? WHERE id = ?", (seq, e.input_id))
    if kind == "compaction":
        delete_message(conn, e.input_id, sid)


def queue_reordered(conn: Conn, sid: str, e: ev.QueueReordered) -> None:
    """The queued inputs take the places (ranks) they held, in the new order."""
    rows = conn.execute(
        "SELECT id, coalesce(queue_rank, admitted_seq) FROM session_input WHERE session_id = ? AND kind = 'prompt'"
        " AND delivery = 'queue' AND promoted_seq IS NULL AND withdrawn = 0",
        (sid,),
    ).fetchall()
    if sorted(e.order) != sorted(row[0] for row in rows) or len(set(e.order)) != len(e.order):
        raise EventRejected("a reorder must list every queued input of the session once; the queue has changed")
    places = sorted(rank for _, rank in rows)
    conn.executemany("UPDATE session_input SET queue_rank = ? WHERE id = ?", list(zip(places, e.order, strict=True)))


def shell_admitted(conn: Conn, sid: str, seq: int, at: int, e: ev.ShellAdmitted) -> None:
    if conn.execute("SELECT 1 FROM session_input WHERE id = ?", (e.input_id,)).fetchone():
        raise EventRejected(f"input {e.input_id} was already admitted")
    prompt = [{"type": "text", "text": e.command}]
    conn.execute(
        "INSERT INTO session_input (id, session_id, kind, prompt_json, fingerprint, admitted_seq, created)"
        " VALUES (?, ?, 'shell', ?, ?, ?, ?)",
        (e.input_id, sid, dumps(prompt), fingerprint(sid, "shell", prompt, None), seq, at),
    )


def shell_ended(conn: Conn, sid: str, seq: int, at: int, e: ev.ShellEnded) -> None:
    """Settles the row and writes the ``shell`` message the next request shows the model."""
    kind, promoted, withdrawn, *_ = _input(conn, sid, e.input_id)
    if kind != "shell" or promoted is not None or withdrawn:
        raise EventRejected(f"input {e.input_id} is not a pending shell command")
    conn.execute("UPDATE session_input SET promoted_seq = ?, settled_seq = ? WHERE id = ?", (seq, seq, e.input_id))
    data = {
        "command": e.command,
        "output": e.output.model_dump(mode="json") if e.output else None,
        "error": e.error.model_dump(mode="json") if e.error else None,
    }
    insert_message(conn, id=e.input_id, session_id=sid, seq=seq, kind="shell", data=data, created=at)
    index_text(conn, sid, e.input_id, f"!{e.command}")


def compaction_admitted(conn: Conn, sid: str, seq: int, at: int, e: ev.CompactionAdmitted) -> None:
    if conn.execute("SELECT 1 FROM session_input WHERE id = ?", (e.input_id,)).fetchone():
        raise EventRejected(f"input {e.input_id} was already admitted")
    if conn.execute(  # looked up, not caught: a failed statement aborts a PostgreSQL transaction
        "SELECT 1 FROM session_input WHERE session_id = ? AND kind = 'compaction' AND promoted_seq IS NULL"
        " AND withdrawn = 0",
        (sid,),
    ).fetchone():
        raise EventRejected(f"session {sid} already has a pending compaction")
    conn.execute(
        "INSERT INTO session_input (id, session_id, kind, fingerprint, admitted_seq, created)"
        " VALUES (?, ?, 'compaction', ?, ?, ?)",
        (e.input_id, sid, fingerprint(sid, "compaction", None, None), seq, at),
    )
    insert_message(
        conn, id=e.input_id, session_id=sid, seq=seq, kind="compaction", data=_divider("manual", "queued"), created=at
    )


def _divider(reason: str, state: str) -> dict[str, Any]:
    return {"reason": reason, "state": state, "summary": None, "recent": None, "error": None}


def compaction_progress(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> None:
    """started / ended / failed: move the divider along and settle a manual barrier."""
    fields: dict[str, Any]
    match event:
        case ev.CompactionStarted(message_id=mid, reason=reason, input_id=input_id):
            state, fields = "running", {}
        case ev.CompactionEnded(message_id=mid, reason=reason, input_id=input_id, summary=s, recent=r):
            state, fields = "ended", {"summary": s, "recent": r}
        case ev.CompactionFailed(message_id=mid, reason=reason, input_id=input_id, error=error):
            state, fields = "failed", {"error": error.model_dump(mode="json")}
        case _:  # pragma: no cover
            raise TypeError(event)
    if input_id is not None:
        kind, _, withdrawn, _, _, settled = _input(conn, sid, input_id)
        if kind != "compaction" or withdrawn or settled is not None:
            raise EventRejected(f"input {input_id} is not a pending compaction")
        conn.execute(  # running takes the barrier out of the queue; ended/failed settle it
            "UPDATE session_input SET promoted_seq = coalesce(promoted_seq, ?),"
            " settled_seq = CASE WHEN ? THEN ? END WHERE id = ?",
            (seq, state != "running", seq, input_id),
        )
        if mid is not None and mid != input_id and load_message(conn, input_id, sid) is not None:
            delete_message(conn, input_id, sid)  # the queued divider becomes the attempt's row
        mid = mid or input_id
    if mid is None:
        return  # an automatic compaction that failed before it had a divider
    data = load_message(conn, mid, sid, "compaction")
    if data is None:
        data = _divider(reason.value, state)
        insert_message(conn, id=mid, session_id=sid, seq=seq, kind="compaction", data=data, created=at)
    data.update(reason=reason.value, state=state, **fields)
    save_message(conn, mid, data, at)
    if state == "ended":
        index_text(conn, sid, mid, fields["summary"])
