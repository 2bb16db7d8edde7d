"""Open a long session at its end: fold only the newest busy periods, older ones on demand.

A 10 000-message session has ~40 000 events; replaying them all before the
first paint costs a second. Instead the view folds the last ``TAIL_EVENTS``
events from a busy-period boundary (``execution.started``), seeded with what
the skipped prefix would have told it: the session row's names and counters
and the unpromoted inbox. Scrolling to the top folds the previous segment the
same way and prepends it (:meth:`Transcript.prepend`). No Textual here.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import Any

from agent_tui.core import events as ev
from agent_tui.tui.port import SessionsPort, call
from agent_tui.tui.transcript_model import PendingInput, SessionFacts, Transcript
from agent_tui.vocab.kinds import Delivery

TAIL_EVENTS = 600
OLDER_EVENTS = 1_000


def segment_start(events: list[ev.StoredEvent], from_log_start: bool) -> int:
    """Index where a self-contained segment begins: the first busy period (else the first step)."""
    if from_log_start:
        return 0
    for kind in (ev.ExecutionStarted, ev.StepStarted):
        for index, stored in enumerate(events):
            if isinstance(stored.event, kind):
                return index
    return 0


def _text(prompt: list[dict[str, Any]] | None) -> str:
    parts = prompt or []
    return "\n".join(p.get("text", "") if p.get("type") == "text" else f"@{p.get('path', '')}" for p in parts)


async def seed_for(sessions: SessionsPort, session_id: str, transcript: Transcript, start_seq: int) -> None:
    """Seed ``transcript`` to start at ``start_seq`` with the session row and the inbox."""
    record = await call(sessions.get(session_id))
    facts = SessionFacts(
        title=record.title, location=record.location, agent=record.agent, model=record.model,
        input_tokens=record.input_tokens, output_tokens=record.output_tokens, cost=record.cost or 0.0,
    )  # fmt: skip
    inbox = list(await call(sessions.pending(session_id)))
    pending = [
        PendingInput(row.id, _text(row.prompt), Delivery(row.delivery or "steer"), row.admitted_seq)
        for row in inbox
        if row.kind == "prompt" and row.admitted_seq < start_seq
    ]
    compactions = [(row.id, row.admitted_seq) for row in inbox if row.kind == "compaction" and row.admitted_seq < start_seq]
    transcript.seed(start_seq, facts, record.head_seq, pending, compactions)


async def read_range(sessions: SessionsPort, session_id: str, after: int, before: int) -> list[ev.StoredEvent]:
    """Durable events with ``after < seq < before``."""
    out: list[ev.StoredEvent] = []
    async with aclosing(sessions.log(session_id, after=after)) as log:
        async for item in log:
            if not isinstance(item, ev.StoredEvent) or item.seq >= before:
                break
            out.append(item)
    return out


async def fold_older(sessions: SessionsPort, session_id: str, transcript: Transcript) -> int:
    """Fold the segment just before ``transcript.start_seq`` and prepend it; returns new blocks."""
    end = transcript.start_seq
    if end <= 1:
        return 0
    after = max(0, end - 1 - OLDER_EVENTS)
    events = await read_range(sessions, session_id, after, end)
    if not events:
        return 0
    start = segment_start(events, from_log_start=after == 0)
    older = Transcript()
    older.seed(events[start].seq, SessionFacts(), counted_seq=end, inbox=[], compactions=[])  # totals: counted
    for stored in events[start:]:
        older.apply(stored)
    return len(transcript.prepend(older))
