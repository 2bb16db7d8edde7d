"""Projectors for model steps: the assistant message, its parts and tool calls.

The assistant row's ``data`` is the fold of every step, fragment, tool and
retry event carrying its ``assistant_message_id``::

    {agent, model, attempt, parts, finish, usage, cost, error, retry, state}

``step.started`` reopens the same row (retries reuse the id) and clears
``retry``; deltas never reach the store, ``.ended`` events carry full values.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.errors import EventRejected
from agent_tui.core.log import events as ev
from agent_tui.core.projections.message_rows import (
    dumps,
    index_text,
    insert_message,
    load_message,
    save_message,
    set_last_message,
)
from agent_tui.core.projections.sql import Conn, dialect_of
from agent_tui.vocab.usage import Usage


def _assistant(conn: Conn, session_id: str, message_id: str) -> dict[str, Any]:
    data = load_message(conn, message_id, session_id, "assistant")
    if data is None:
        raise EventRejected(f"no step started for assistant message {message_id}")
    return data


def _part(data: dict[str, Any], kind: str, ordinal: int) -> dict[str, Any] | None:
    part: dict[str, Any]
    for part in data["parts"]:
        if part["type"] == kind and part.get("ordinal") == ordinal:
            return part
    return None


def _assistant_text(data: dict[str, Any]) -> str:
    return "\n".join(p["text"] for p in data["parts"] if p["type"] == "text" and p["text"])


def step_started(conn: Conn, sid: str, seq: int, at: int, e: ev.StepStarted) -> None:
    data = load_message(conn, e.assistant_message_id, sid, "assistant")
    if data is None:
        data = {
            "agent": e.agent,
            "model": e.model,
            "attempt": e.attempt,
            "parts": [],
            "finish": None,
            "usage": None,
            "cost": None,
            "error": None,
            "retry": None,
            "state": "running",
        }
        insert_message(
            conn, id=e.assistant_message_id, session_id=sid, seq=seq, kind="assistant", data=data, created=at
        )
        return
    data.update(agent=e.agent, model=e.model, attempt=e.attempt, retry=None, error=None, finish=None, state="running")
    save_message(conn, e.assistant_message_id, data, at)


def fragment(conn: Conn, sid: str, at: int, event: ev.DurableEvent) -> None:
    """text/reasoning started and ended: open a part, then fill its full value."""
    match event:
        case ev.TextStarted(assistant_message_id=mid, ordinal=n):
            kind, text, meta = "text", None, None
        case ev.ReasoningStarted(assistant_message_id=mid, ordinal=n):
            kind, text, meta = "reasoning", None, None
        case ev.TextEnded(assistant_message_id=mid, ordinal=n, text=text):
            kind, meta = "text", None
        case ev.ReasoningEnded(assistant_message_id=mid, ordinal=n, text=text, provider_meta=meta):
            kind = "reasoning"
        case _:  # pragma: no cover - dispatch guarantees the type
            raise TypeError(event)
    data = _assistant(conn, sid, mid)
    part = _part(data, kind, n)
    if part is None:
        part = {"type": kind, "ordinal": n, "text": ""}
        if kind == "reasoning":
            part["provider_meta"] = {}
        data["parts"].append(part)
    if text is not None:
        part["text"] = text
    if meta is not None:
        part["provider_meta"] = meta
    save_message(conn, mid, data, at)
    if kind == "text" and text is not None:
        index_text(conn, sid, mid, _assistant_text(data))
        set_last_message(conn, sid, text)


def tool_called(conn: Conn, sid: str, seq: int, at: int, e: ev.ToolCalled) -> None:
    data = _assistant(conn, sid, e.assistant_message_id)
    if conn.execute(
        "SELECT 1 FROM tool_call WHERE assistant_message_id = ? AND call_id = ?",
        (e.assistant_message_id, e.call_id),
    ).fetchone():
        raise EventRejected(f"tool call {e.call_id} already recorded for {e.assistant_message_id}")
    conn.execute(
        "INSERT INTO tool_call (session_id, assistant_message_id, call_id, seq, name, input_json,"
        " state, call_meta_json, hosted) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)",
        (sid, e.assistant_message_id, e.call_id, seq, e.name, dumps(e.input), dumps(e.call_meta), int(e.hosted)),
    )
    data["parts"].append({"type": "tool", "call_id": e.call_id})
    save_message(conn, e.assistant_message_id, data, at)


def tool_settled(conn: Conn, sid: str, at: int, event: ev.ToolSucceeded | ev.ToolFailed) -> None:
    out: str | None
    err: str | None
    match event:
        case ev.ToolSucceeded(output=output):
            state, out, err = "success", dumps(output.model_dump(mode="json")), None
        case ev.ToolFailed(error=error):
            state, out, err = "failed", None, dumps(error.model_dump(mode="json"))
    updated = conn.execute(
        "UPDATE tool_call SET state = ?, output_json = ?, error_json = ?, result_meta_json = ?"
        " WHERE assistant_message_id = ? AND call_id = ? AND session_id = ?",
        (state, out, err, dumps(event.result_meta), event.assistant_message_id, event.call_id, sid),
    ).rowcount
    if not updated:
        raise EventRejected(f"unknown tool call {event.call_id} of {event.assistant_message_id}")
    conn.execute("UPDATE message SET updated = ? WHERE id = ?", (at, event.assistant_message_id))


def step_closed(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> None:
    """step.ended, step.failed and retry.scheduled: settle or annotate the row."""
    match event:
        case ev.StepEnded(assistant_message_id=mid, finish=finish, usage=usage, cost=cost):
            data = _assistant(conn, sid, mid)
            data.update(finish=finish, usage=usage.model_dump(), cost=cost, retry=None, error=None, state="ended")
            data["cost_source"] = event.cost_source
            _add_usage(conn, sid, usage, cost)
            _spent(conn, sid, seq, at, (data.get("model"), data.get("agent")), usage, cost, event.cost_source)
        case ev.StepFailed(assistant_message_id=mid, error=error, usage=usage, cost=cost):
            data = _assistant(conn, sid, mid)
            data.update(error=error.model_dump(mode="json"), retry=None, state="failed")
            if usage is not None:
                data.update(usage=usage.model_dump(), cost=cost, cost_source=event.cost_source)
                _add_usage(conn, sid, usage, cost)
                _spent(conn, sid, seq, at, (data.get("model"), data.get("agent")), usage, cost, event.cost_source)
        case ev.RetryScheduled(assistant_message_id=mid, attempt=attempt, at_ms=at_ms, error=error):
            data = _assistant(conn, sid, mid)
            data["retry"] = {"attempt": attempt, "at_ms": at_ms, "error": error.model_dump(mode="json")}
        case _:  # pragma: no cover
            raise TypeError(event)
    save_message(conn, mid, data, at)


SAMPLING_AGENT = "mcp-sampling"
"""The agent a sampling request's usage is booked to: what MCP servers spent, apart from the agents' steps."""


def sampling_spent(conn: Conn, sid: str, seq: int, at: int, event: ev.SamplingAnswered) -> None:
    """An approved MCP sampling request: what it spent counts for the session and in the usage ledger
    (a declined or cancelled one spent nothing)."""
    if event.usage is None:
        return
    _add_usage(conn, sid, event.usage, event.cost)
    _spent(conn, sid, seq, at, (event.model or "", SAMPLING_AGENT), event.usage, event.cost, event.cost_source)


def clear_retries(conn: Conn, sid: str, at: int) -> None:
    """An interruption or failed execution ends any scheduled retry."""
    rows = conn.execute(
        "SELECT id, data_json FROM message WHERE session_id = ? AND kind = 'assistant'"
        f" AND {dialect_of(conn).json_field('data_json', 'retry')} IS NOT NULL",
        (sid,),
    ).fetchall()
    for message_id, raw in rows:
        data = json.loads(raw)
        data["retry"] = None
        save_message(conn, message_id, data, at)


COMPACTION_AGENT = "compaction"
"""The ``agent`` of a compaction's ``step_usage`` row: its summary call is no agent's step, and
``/usage`` and ``agent-tui usage --by agent`` show what compactions spent apart."""


def compaction_spent(conn: Conn, sid: str, seq: int, at: int, event: ev.DurableEvent) -> None:
    """A compaction's summary call that finished: its usage row, and the session's totals, as a step's."""
    match event:
        case ev.CompactionEnded(usage=Usage() as usage) | ev.CompactionFailed(usage=Usage() as usage):
            _add_usage(conn, sid, usage, event.cost)
            _spent(conn, sid, seq, at, (event.model, COMPACTION_AGENT), usage, event.cost, event.cost_source)
        case _:
            pass  # no call finished (or a log written before compactions recorded usage)


def _spent(
    conn: Conn,
    sid: str,
    seq: int,
    at: int,
    spender: tuple[str | None, str | None],
    usage: Usage,
    cost: float | None,
    source: str | None,
) -> None:
    """One ``step_usage`` row: what this call spent, by ``spender``'s model and agent."""
    model, agent = spender
    conn.execute(
        "INSERT INTO step_usage (session_id, seq, at, model, agent, input_tokens, output_tokens,"
        " reasoning_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, seq) DO UPDATE SET"
        " at = excluded.at, model = excluded.model, agent = excluded.agent, input_tokens = excluded.input_tokens,"
        " output_tokens = excluded.output_tokens, reasoning_tokens = excluded.reasoning_tokens,"
        " cache_read_tokens = excluded.cache_read_tokens, cache_write_tokens = excluded.cache_write_tokens,"
        " cost = excluded.cost, cost_source = excluded.cost_source",
        (
            sid,
            seq,
            at,
            model or "",
            agent or "",
            usage.input_tokens,
            usage.output_tokens,
            usage.reasoning_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            cost,
            source,
        ),
    )


def _add_usage(conn: Conn, sid: str, usage: Usage, cost: float | None) -> None:
    conn.execute(
        "UPDATE session SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,"
        " cost = cost + ? WHERE id = ?",
        (usage.input_tokens, usage.output_tokens, cost or 0.0, sid),
    )
