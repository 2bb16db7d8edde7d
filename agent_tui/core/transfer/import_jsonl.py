"""A new session from a JSONL export (``export_jsonl``): the records become the events that made them.

The whole file is read and turned into events before anything is written; a
file that is not an export (no ``header`` first, a line that is not JSON) or
of an unknown ``schema_version`` is one clear error and nothing is changed.
Unknown record types and fields are ignored (reference 002). New ids are
made for the session, its prompts and its steps; call ids are kept. A file
with subagents holds several sessions: ``import_tree`` splits it and hands
each part here, with the links (``spawned_by``, the ``task`` results' child
ids) translated to the new ids.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from agent_tui.core.errors import StoreError
from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.transfer.export_jsonl import SCHEMA_VERSION
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import TOOL_INTERRUPTED, CompactionReason, Delivery, ErrorType
from agent_tui.vocab.tool_output import ToolOutput
from agent_tui.vocab.usage import Usage


class NotAnExport(StoreError):
    """The file is not an agent-tui JSONL export (or of a version this build cannot read)."""


def parse(text: str, source: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    # records end at "\n" only: str.splitlines() would also split inside a string that holds
    # U+0085, U+2028 or U+2029, which the export writes as they are (ensure_ascii=False)
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise NotAnExport(f"{source}: line {number} is not JSON; not an agent-tui export") from None
        if not isinstance(row, dict) or not isinstance(row.get("type"), str):
            raise NotAnExport(f"{source}: line {number} is not a record (an object with a type)")
        rows.append(row)
    if not rows or rows[0]["type"] != "header":
        raise NotAnExport(f"{source}: no header record first; not an agent-tui export")
    version = rows[0].get("schema_version")
    if version != SCHEMA_VERSION:
        raise NotAnExport(f"{source}: schema_version {version!r} is not supported (this build reads {SCHEMA_VERSION})")
    return rows


Links = Mapping[tuple[str, str], tuple[str, str]]
"""(exported assistant message id, call id) of a ``task`` call → (exported, new) id of its child session."""


def swap_id(value: Any, old: str, new: str) -> Any:
    """``value`` (JSON) with every occurrence of the id ``old`` in its strings made ``new``."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {key: swap_id(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [swap_id(item, old, new) for item in value]
    return value


class _Builder:
    def __init__(self, location: str, project_root: str, links: Links | None = None) -> None:
        self.location, self.root = location, project_root
        self.links: Links = links or {}
        self.message_ids: dict[str, str] = {}  # exported assistant message id -> the new one
        self.events: list[ev.DurableEvent] = []
        self.step: dict[str, Any] | None = None  # the open step: its id, meta, unsettled calls
        self.request: dict[str, Any] = {}  # the llm.request before the response (model, agent, attempt)
        self.compaction: str | None = None

    def header(self, row: dict[str, Any], spawned_by: ev.SpawnedBy | None = None) -> None:
        meta = row.get("meta") or {}
        self.events.append(
            ev.SessionCreated(
                location=self.location,
                project_root=self.root,
                title=meta.get("title"),
                agent=meta.get("agent") or "build",
                model=(row.get("model") or {}).get("name"),
                spawned_by=spawned_by,
            )
        )

    def record(self, row: dict[str, Any]) -> None:
        kind = row["type"]
        if kind != "tool.output":
            self.close_step()
        match kind:
            case "run.start":
                meta = row.get("meta") or {}
                prompt = meta.get("prompt") or ev.text_prompt(row["input"]["text"])
                input_id = ids.message_id()
                delivery = meta.get("delivery") or Delivery.STEER
                self.events += [
                    ev.PromptAdmitted(input_id=input_id, prompt=prompt, delivery=delivery),
                    ev.PromptPromoted(input_id=input_id),
                ]
            case "llm.request":
                self.request = row
            case "llm.response":
                self.open_step(row)
            case "tool.output":
                self.settle(row)
            case "agent.event":
                self.agent_event(row.get("event") or {})

    def open_step(self, row: dict[str, Any]) -> None:
        meta, output = row.get("meta") or {}, row.get("output") or {}
        amid = ids.message_id()
        exported = meta.get("message_id")  # absent in exports from before subagents were exported
        if isinstance(exported, str):
            self.message_ids[exported] = amid
        reply = (output.get("messages") or [{}])[0]
        request, asked = self.request.get("meta") or {}, self.request.get("model") or {}
        model = asked.get("name") or (output.get("usage") or {}).get("model") or ""
        self.events.append(
            ev.StepStarted(
                assistant_message_id=amid,
                agent=request.get("agent") or "build",
                model=model,
                attempt=request.get("attempt") or 1,
            )
        )
        calls = {c["id"]: c for c in reply.get("tool_calls") or []}
        parts = meta.get("parts") or (
            [{"type": "text", "ordinal": 0, "text": reply["content"]}] if reply.get("content") else []
        )
        parts = parts + [{"type": "tool", "call_id": i} for i in calls if not any(p.get("call_id") == i for p in parts)]
        open_calls = []
        for part in parts:
            match part["type"]:
                case "text":
                    self.events += [
                        ev.TextStarted(assistant_message_id=amid, ordinal=part["ordinal"]),
                        ev.TextEnded(assistant_message_id=amid, ordinal=part["ordinal"], text=part["text"]),
                    ]
                case "reasoning":
                    self.events += [
                        ev.ReasoningStarted(assistant_message_id=amid, ordinal=part["ordinal"]),
                        ev.ReasoningEnded(
                            assistant_message_id=amid,
                            ordinal=part["ordinal"],
                            text=part["text"],
                            provider_meta=part.get("provider_meta") or {},
                        ),
                    ]
                case "tool":
                    call = calls.get(part["call_id"], {})
                    function = call.get("function") or {}
                    args = json.loads(function.get("arguments") or "{}")
                    self.events.append(
                        ev.ToolCalled(
                            assistant_message_id=amid,
                            call_id=part["call_id"],
                            name=function.get("name", "unknown"),
                            input=args,
                        )
                    )
                    open_calls.append(part["call_id"])
        self.step = {"id": amid, "exported": exported, "row": row, "meta": meta, "open": open_calls}

    def settle(self, row: dict[str, Any]) -> None:
        if self.step is None or row.get("tool_call_id") not in self.step["open"]:
            return
        link = self.links.get((self.step["exported"], row["tool_call_id"]))
        if link is not None:  # a ``task`` result names its child: the new child, as the picker lists it
            row = swap_id(row, *link)
        amid, meta = self.step["id"], row.get("meta") or {}
        self.step["open"].remove(row["tool_call_id"])
        result_meta = meta.get("result_meta") or {}
        if row.get("is_error"):
            error = ErrorInfo(
                **(meta.get("error") or {"type": ErrorType.TOOL_EXECUTION, "message": row.get("result_raw", "")})
            )
            self.events.append(
                ev.ToolFailed(
                    assistant_message_id=amid, call_id=row["tool_call_id"], error=error, result_meta=result_meta
                )
            )
        else:
            output = ToolOutput(**(meta.get("output") or {"text": row.get("result_raw", "")}))
            self.events.append(
                ev.ToolSucceeded(
                    assistant_message_id=amid, call_id=row["tool_call_id"], output=output, result_meta=result_meta
                )
            )

    def close_step(self) -> None:
        if self.step is None:
            return
        amid, meta, output = self.step["id"], self.step["meta"], self.step["row"].get("output") or {}
        stale = ErrorInfo(type=ErrorType.TOOL_STALE, message=TOOL_INTERRUPTED)
        self.events += [ev.ToolFailed(assistant_message_id=amid, call_id=c, error=stale) for c in self.step["open"]]
        usage = output.get("usage") or {}
        used = Usage(
            input_tokens=usage.get("input_tokens", 0),
            output_tokens=usage.get("output_tokens", 0),
            reasoning_tokens=usage.get("reasoning_tokens", 0),
            cache_read_tokens=usage.get("input_cached_tokens") or 0,
            cache_write_tokens=usage.get("input_cache_creation_tokens") or 0,
        )
        if meta.get("state") == "failed" and meta.get("error"):
            self.events.append(
                ev.StepFailed(
                    assistant_message_id=amid,
                    error=ErrorInfo(**meta["error"]),
                    usage=used if usage else None,
                    cost=meta.get("cost"),
                    cost_source=meta.get("cost_source"),
                )
            )
        else:
            self.events.append(
                ev.StepEnded(
                    assistant_message_id=amid,
                    finish=output.get("stop_reason") or "stop",
                    usage=used,
                    cost=meta.get("cost"),
                    cost_source=meta.get("cost_source"),
                )
            )
        self.step = None

    def agent_event(self, event: dict[str, Any]) -> None:
        match event.get("type"):
            case "instructions_update":
                self.events.append(
                    ev.InstructionsUpdated(
                        message_id=ids.message_id(), text=event.get("text") or "", source=event.get("source")
                    )
                )
            case "compaction_start":
                self.compaction = ids.message_id()
                self.events.append(
                    ev.CompactionStarted(
                        message_id=self.compaction, reason=CompactionReason(event.get("reason") or "manual")
                    )
                )
            case "compaction_complete":
                mid = self.compaction or ids.message_id()
                reason = CompactionReason(event.get("reason") or "manual")
                usage = event.get("usage")
                spent: dict[str, Any] = {  # what its summary call spent (absent in older exports)
                    "model": event.get("model"),
                    "usage": Usage.model_validate(usage) if usage else None,
                    "cost": event.get("cost"),
                    "cost_source": event.get("cost_source"),
                }
                if event.get("state") == "failed":
                    error = ErrorInfo(**(event.get("error") or {"type": "compaction.failed", "message": "failed"}))
                    self.events.append(ev.CompactionFailed(message_id=mid, reason=reason, error=error, **spent))
                else:
                    self.events.append(
                        ev.CompactionEnded(
                            message_id=mid,
                            reason=reason,
                            summary=event.get("summary") or "",
                            recent=event.get("recent") or "",
                            **spent,
                        )
                    )
                self.compaction = None


def events_from(rows: list[dict[str, Any]], location: str, project_root: str, source: str) -> list[ev.DurableEvent]:
    """The events that make a session like the exported one; a record that does not fit is one error."""
    return build(rows, location, project_root, source).events


def build(
    rows: list[dict[str, Any]],
    location: str,
    project_root: str,
    source: str,
    *,
    first: int = 1,
    links: Links | None = None,
    spawned_by: ev.SpawnedBy | None = None,
) -> _Builder:
    """One session's records (``rows[0]`` its header, line ``first`` of the file) built into events;
    the builder also knows which new assistant message each exported one became."""
    builder = _Builder(location, project_root, links)
    try:
        builder.header(rows[0], spawned_by)
        for number, row in enumerate(rows[1:], first + 1):
            try:
                builder.record(row)
            except KeyError as error:
                raise NotAnExport(f"{source}: record {number} ({row['type']}) does not fit: no field {error}") from None
            except (TypeError, ValueError, ValidationError) as error:
                raise NotAnExport(f"{source}: record {number} ({row['type']}) does not fit: {error}") from None
        builder.close_step()
    except ValidationError as error:
        raise NotAnExport(f"{source}: the header does not fit: {error.errors()[0]['msg']}") from None
    return builder
