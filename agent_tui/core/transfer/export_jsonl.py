"""A session as reference 002's append-only JSONL records, for other tools to audit a run.

One ``header`` (``schema_version: 1``), then per prompt (a *run*, its id the
prompt's message id): ``run.start``; per model step an ``llm.request`` (the
messages added since the previous request: the prompt, tool results,
instruction updates — ``meta.incremental``, so a long session's export stays
linear) and an ``llm.response`` with usage; a ``tool.output`` per call with the
full result; ``run.status`` and ``run.end``. Instruction updates and
compactions are ``agent.event`` records. What agent-tui needs to import the
export again rides in ``meta`` (readers ignore fields they do not know).
The export is what the model sees: rewound history is not in it.

A session's subagents (issue 25) follow its own records, depth first (a child,
its children, the next child), each opened by an ``x.agent-tui.subagent``
record: the child's header under a namespaced type, its ``meta.spawned_by``
naming the parent session, the assistant message and the ``task`` call. Not a
second ``header``: reference 002 makes the header the file's one opening record
("do not rewrite the header"), and a reader keeping the last header it saw
would take the child's model and cwd for the run's. Its §9 lets a file carry
new record types under an ``x.<org>.`` prefix, which readers ignore; the
child's runs are ordinary ``run.start`` … ``run.end`` with their own run ids
and ``session_id``, and ``seq`` keeps counting across the file, so a reader
that pairs ``llm.request`` with ``llm.response`` by ``seq`` never mixes two
sessions' steps.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_tui import __version__
from agent_tui.core.log import events as ev
from agent_tui.core.log.records import MessageRecord, SessionRecord, ToolCallRecord

SCHEMA_VERSION = 1
SUBAGENT = "x.agent-tui.subagent"
"""The record that opens a subagent's session in a parent's export (its header, namespaced)."""


@dataclass(frozen=True)
class Transcript:
    """One session's part of an export: the session and its projection."""

    session: SessionRecord
    messages: list[MessageRecord]
    calls: list[ToolCallRecord]
    spend: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    """What each compaction's summary call spent, by its message id (``compaction_spend``)."""


SPEND_TYPES = (ev.CompactionEnded.TYPE, ev.CompactionFailed.TYPE)
"""The events whose spend an export carries besides the projection's (``compaction_spend``)."""


def compaction_spend(events: Iterable[ev.StoredEvent]) -> dict[str, dict[str, Any]]:
    """Each compaction's model, usage and cost, by its message id: the projection keeps them in the
    usage rows, not on the compaction's message, so an export reads them from its events; the
    ``compaction_complete`` event carries them and an import records them again (``/usage`` and
    ``agent-tui usage`` count a compaction's call, agent ``compaction``, before and after)."""
    spend: dict[str, dict[str, Any]] = {}
    for stored in events:
        match stored.event:
            case (
                ev.CompactionEnded(message_id=str() as mid, usage=usage)
                | ev.CompactionFailed(message_id=str() as mid, usage=usage)
            ) if usage is not None:
                event = stored.event
                spend[mid] = {
                    "model": event.model,
                    "usage": usage.model_dump(mode="json"),
                    "cost": event.cost,
                    "cost_source": event.cost_source,
                }
            case _:
                pass
    return spend


def iso(ms: int) -> str:
    return _dt.datetime.fromtimestamp(ms / 1000, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def assistant_text(data: dict[str, Any]) -> str:
    return "\n".join(p["text"] for p in data.get("parts", []) if p["type"] == "text" and p["text"])


def _usage(data: dict[str, Any]) -> dict[str, Any] | None:
    usage = data.get("usage")
    if not usage:
        return None
    return {
        "model": data.get("model"),
        "input_tokens": usage.get("input_tokens", 0),
        "input_cached_tokens": usage.get("cache_read_tokens", 0),
        "input_cache_creation_tokens": usage.get("cache_write_tokens", 0),
        "output_tokens": usage.get("output_tokens", 0),
        "total_tokens": usage.get("input_tokens", 0) + usage.get("output_tokens", 0),
        "reasoning_tokens": usage.get("reasoning_tokens", 0),
    }


def _status(data: dict[str, Any] | None) -> str:
    if data is None or data.get("state") == "ended":
        return "completed"
    error = data.get("error") or {}
    return "cancelled" if error.get("type") == "aborted" else "error"


class _Writer:
    def __init__(self, part: Transcript, invocation: int = 0, event_seq: int = 0) -> None:
        session, calls = part.session, part.calls
        self.session = session
        self.spend = part.spend
        self.calls = {(c.assistant_message_id, c.call_id): c for c in calls}
        self.run_id: str | None = None
        self.last_assistant: dict[str, Any] | None = None
        self.unsent: list[dict[str, Any]] = []  # messages since the last llm.request
        self.invocation = invocation  # file-wide: a subagent's steps go on from its parent's
        self.event_seq = event_seq

    def header(self) -> dict[str, Any]:
        s = self.session
        return {
            "type": "header",
            "schema_version": SCHEMA_VERSION,
            "run_id": s.id,
            "session_id": s.id,
            "started_at": iso(s.created),
            "client": {"name": "agent-tui", "version": __version__},
            "model": {"name": s.model},
            "runtime": {"cwd": s.location},
            "meta": {"title": s.title, "agent": s.agent, "project_root": s.project_root},
        }

    def subagent(self) -> dict[str, Any]:
        """A child's header as an ``x.agent-tui.subagent`` record (with ``ts``, as every record but the header)."""
        s, opened = self.session, self.header()
        spawned_by = {
            "session_id": s.spawned_by,
            "assistant_message_id": s.spawned_message_id,
            "call_id": s.spawned_call_id,
        }
        del opened["schema_version"]
        return {
            **opened,
            "type": SUBAGENT,
            "ts": opened["started_at"],
            "meta": {**opened["meta"], "spawned_by": spawned_by},
        }

    def message(self, m: MessageRecord) -> Iterator[dict[str, Any]]:
        ts = iso(m.created)
        match m.kind:
            case "user":
                yield from self.end_run(ts)
                self.run_id, self.last_assistant = m.id, None
                text = ev.prompt_text(m.data["prompt"])
                self.unsent.append({"role": "user", "content": text})
                yield self._rec(
                    "run.start",
                    ts,
                    input={"type": "text", "text": text},
                    session_id=self.session.id,
                    meta={"prompt": m.data["prompt"], "delivery": m.data.get("delivery")},
                )
            case "assistant":
                yield from self.step(m, ts)
            case "system":
                self.unsent.append({"role": "system", "content": m.data["text"]})
                source = {"source": m.data["source"]} if m.data.get("source") else {}
                yield self.agent_event(ts, {"type": "instructions_update", "text": m.data["text"], **source})
            case "compaction":
                d = m.data
                yield self.agent_event(ts, {"type": "compaction_start", "reason": d.get("reason")})
                done = {
                    "type": "compaction_complete",
                    "reason": d.get("reason"),
                    "state": d.get("state"),
                    "summary": d.get("summary"),
                    "recent": d.get("recent"),
                    "error": d.get("error"),
                    **self.spend.get(m.id, {}),  # model, usage, cost, cost_source: what its call spent
                }
                yield self.agent_event(ts, done)

    def step(self, m: MessageRecord, ts: str) -> Iterator[dict[str, Any]]:
        d = m.data
        self.invocation += 1
        yield self._rec(
            "llm.request",
            ts,
            seq=self.invocation,
            model={"name": d.get("model")},
            input={"messages": self.unsent, "model": d.get("model")},
            meta={"incremental": True, "agent": d.get("agent"), "attempt": d.get("attempt")},
        )
        self.unsent = []
        calls = [self.calls.get((m.id, p["call_id"])) for p in d.get("parts", []) if p["type"] == "tool"]
        reply: dict[str, Any] = {"role": "assistant", "content": assistant_text(d) or None}
        if calls:
            reply["tool_calls"] = [
                {
                    "id": c.call_id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.input, ensure_ascii=False)},
                }
                for c in calls
                if c
            ]
        reasoning = [p for p in d.get("parts", []) if p["type"] == "reasoning"]
        parts = [{k: v for k, v in p.items()} for p in d.get("parts", [])]
        yield self._rec(
            "llm.response",
            ts,
            seq=self.invocation,
            output={
                "messages": [reply],
                "usage": _usage(d),
                "stop_reason": d.get("finish"),
                "provider_meta": [p.get("provider_meta") for p in reasoning] or None,
            },
            meta={
                "message_id": m.id,  # what a subagent's ``spawned_by`` names
                "parts": parts,
                "state": d.get("state"),
                "error": d.get("error"),
                "cost": d.get("cost"),
                "cost_source": d.get("cost_source"),
            },
        )
        for call in calls:
            if call is None or call.state == "running":
                continue
            failed = call.state == "failed"
            raw = (call.error or {}).get("message", "") if failed else (call.output or {}).get("text", "")
            self.unsent.append({"role": "tool", "tool_call_id": call.call_id, "content": raw})
            yield self._rec(
                "tool.output",
                ts,
                tool=call.name,
                tool_call_id=call.call_id,
                result_raw=raw,
                is_error=failed,
                meta={
                    "input": call.input,
                    "output": call.output,
                    "error": call.error,
                    "hosted": call.hosted,
                    "result_meta": call.result_meta,  # a ``task`` call's child session id, for the TUI
                },
            )
        self.last_assistant = d

    def agent_event(self, ts: str, event: dict[str, Any]) -> dict[str, Any]:
        self.event_seq += 1
        return self._rec("agent.event", ts, seq=self.event_seq, event=event)

    def end_run(self, ts: str) -> Iterator[dict[str, Any]]:
        if self.run_id is None:
            return
        status = _status(self.last_assistant)
        final = assistant_text(self.last_assistant) if self.last_assistant else None
        yield self._rec("run.status", ts, status=status)
        yield self._rec("run.end", ts, outcome=status, final=final or None)

    def _rec(self, type_: str, ts: str, **fields: Any) -> dict[str, Any]:
        return {"type": type_, "run_id": self.run_id or self.session.id, "ts": ts, **fields}


def records(root: Transcript, subagents: Sequence[Transcript] = ()) -> Iterator[dict[str, Any]]:
    """Every record of the export, in order; ``subagents`` (depth first) follow the session's own."""
    writer = _Writer(root)
    yield writer.header()
    yield from _body(writer, root.messages)
    for child in subagents:
        writer = _Writer(child, writer.invocation, writer.event_seq)
        yield writer.subagent()
        yield from _body(writer, child.messages)


def _body(writer: _Writer, messages: list[MessageRecord]) -> Iterator[dict[str, Any]]:
    for message in messages:
        yield from writer.message(message)
    yield from writer.end_run(iso(writer.session.updated))


def lines(root: Transcript, subagents: Sequence[Transcript] = ()) -> Iterator[str]:
    for record in records(root, subagents):
        yield json.dumps(record, ensure_ascii=False) + "\n"
