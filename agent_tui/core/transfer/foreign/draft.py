"""What every foreign reader builds: one new session's events, with the source's times, and a tally.

A reader walks another agent's session file and tells a :class:`Draft` what it
found: a prompt, a step's text, reasoning and tool calls, a tool's result, a
step's usage, a compaction, something it could not map. The draft turns that
into the events an agent-tui session is made of (the same ones a live run
writes, so the transcript, the model-visible history, export, fork and rewind
read it like any other) and counts what it mapped. What it could not map is
kept as a note: a system message in the transcript, which the model reads too,
so nothing is lost silently.

A step stays open until the next prompt, compaction, or a new response: tool
results arrive after the response that asked for them, and are settled inside
its step, as a live run does.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent_tui.core.errors import StoreError
from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import TOOL_INTERRUPTED, CompactionReason, ErrorType
from agent_tui.vocab.tool_output import ToolOutput
from agent_tui.vocab.usage import Usage


class UnreadableSession(StoreError):
    """Another agent's session file this build cannot read (not that format, an unknown version, a bad line)."""


def json_lines(text: str, path: str) -> list[dict[str, Any]]:
    """Every line of a JSONL session file as an object; the first that is not one is the error
    (records end at ``\\n`` only, as the agents write them)."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise UnreadableSession(f"{path}: line {number} is not JSON; nothing was imported") from None
        if not isinstance(record, dict):
            raise UnreadableSession(f"{path}: line {number} is not a record (a JSON object); nothing was imported")
        records.append(record)
    return records


@contextmanager
def must_fit(path: str, where: str, form: str) -> Iterator[None]:
    """Read one record of the file (``where``: ``line 3 (user)``, ``message 2``) in the reader's body:
    a record of another shape than the format's (a key missing, a value of another type) makes the
    whole file unreadable, naming the file and the record, rather than crash the import."""
    try:
        yield
    except (KeyError, TypeError, AttributeError) as error:
        raise UnreadableSession(f"{path}: {where} does not fit {form}: {error}") from None


def time_ms(value: Any) -> int | None:
    """An ISO 8601 time (``2026-12-06T09:15:52.667Z``) or epoch seconds as ms; None when absent or unparsable."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value * 1000)
    if not isinstance(value, str) or not value:
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def image(mime: str, data: str, name: str) -> dict[str, Any] | None:
    """A base64 image as a tool output stores it (None when the data is not base64)."""
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None
    return {"mime": mime, "data": data, "path": name, "size": size}


@dataclass
class Imported:
    """One foreign session, read and built; nothing is written yet."""

    agent: str
    source_id: str
    location: str
    path: str
    version: str | None
    title: str | None
    model: str | None
    events: list[tuple[ev.DurableEvent, int | None]]
    mapped: Counter[str]
    notes: list[str]
    # a subagent's session the source kept beside this one: it becomes a child session of the
    # import, spawned by the call ``spawned_by_call`` of its parent, running our agent ``subagent``
    children: list[Imported] = field(default_factory=list)
    spawned_by_call: str | None = None
    subagent: str | None = None


@dataclass
class _Step:
    id: str
    parts: list[tuple[ev.DurableEvent, int | None]] = field(default_factory=list)
    ordinal: int = 0
    open_calls: dict[str, str] = field(default_factory=dict)  # call id -> tool name
    usage: Usage | None = None
    sealed: bool = False  # its response is complete (usage seen): new content opens another step
    text: list[str] = field(default_factory=list)
    notes: list[tuple[ev.DurableEvent, int | None]] = field(default_factory=list)


class Draft:
    def __init__(self, agent: str, label: str) -> None:
        self.agent, self.label = agent, label
        self.events: list[tuple[ev.DurableEvent, int | None]] = []
        self.mapped: Counter[str] = Counter()
        self.notes: list[str] = []
        self.step: _Step | None = None
        self.model: str | None = None
        self.first_at: int | None = None
        self.last_at: int | None = None
        self.title: str | None = None
        self.children: list[Imported] = []

    def _at(self, at: int | None) -> int | None:
        if at is None:
            return self.last_at
        self.first_at = at if self.first_at is None else self.first_at
        self.last_at = at
        return at

    # -- prompts and notes -------------------------------------------------------
    def prompt(self, parts: list[ev.PromptPart], at: int | None) -> None:
        self.close_step()
        at = self._at(at)
        input_id = ids.message_id()
        self.events += [
            (ev.PromptAdmitted(input_id=input_id, prompt=parts), at),
            (ev.PromptPromoted(input_id=input_id), at),
        ]
        self.mapped["user messages"] += 1
        self.mapped["images"] += sum(1 for part in parts if isinstance(part, ev.ImagePart))
        if self.title is None:
            text = ev.prompt_text(parts).strip()
            if text:
                self.title = " ".join(text.split())[:80]

    def note(self, text: str, at: int | None = None) -> None:
        """Something that could not be mapped, kept visibly where it was (after the open step, whose
        tool results may still come)."""
        body = f"[imported from {self.label}] {text}"
        self.notes.append(text)
        event = (ev.InstructionsUpdated(message_id=ids.message_id(), text=body, source="import"), self._at(at))
        if self.step is not None:
            self.step.notes.append(event)
        else:
            self.events.append(event)

    # -- steps ---------------------------------------------------------------------
    def _open(self, model: str | None, at: int | None, new: bool) -> _Step:
        if self.step is not None and (new or self.step.sealed):
            self.close_step()
        if self.step is None:
            model = model or self.model or ""
            self.model = model or self.model
            self.step = _Step(id=ids.message_id())
            self.step.parts.append(
                (ev.StepStarted(assistant_message_id=self.step.id, agent="build", model=model), self._at(at))
            )
            self.mapped["assistant messages"] += 1
        return self.step

    def text(self, text: str, *, model: str | None = None, at: int | None = None, new_step: bool = False) -> None:
        if not text:
            return
        step = self._open(model, at, new_step)
        amid, n = step.id, step.ordinal
        step.parts += [
            (ev.TextStarted(assistant_message_id=amid, ordinal=n), self._at(at)),
            (ev.TextEnded(assistant_message_id=amid, ordinal=n, text=text), self._at(at)),
        ]
        step.ordinal += 1
        step.text.append(text)

    def reasoning(self, text: str, *, model: str | None = None, at: int | None = None, new_step: bool = False) -> None:
        if not text:
            return
        step = self._open(model, at, new_step)
        amid, n = step.id, step.ordinal
        step.parts += [
            (ev.ReasoningStarted(assistant_message_id=amid, ordinal=n), self._at(at)),
            (ev.ReasoningEnded(assistant_message_id=amid, ordinal=n, text=text), self._at(at)),
        ]
        step.ordinal += 1
        self.mapped["reasoning"] += 1

    def call(
        self,
        call_id: str,
        name: str,
        input: dict[str, Any],
        *,
        foreign: str | None = None,
        model: str | None = None,
        at: int | None = None,
        new_step: bool = False,
    ) -> None:
        """A tool call: ``name`` is ours (``bash``, ``apply_patch``, ``read``) or, with ``foreign`` set to the
        source's name, the source's own tool kept as it was."""
        step = self._open(model, at, new_step)
        meta = {"imported_from": self.agent, **({"foreign_name": foreign} if foreign else {})}
        step.parts.append(
            (
                ev.ToolCalled(assistant_message_id=step.id, call_id=call_id, name=name, input=input, call_meta=meta),
                self._at(at),
            )
        )
        step.ordinal += 1
        step.open_calls[call_id] = name
        self.mapped["foreign tool calls" if foreign else f"tool calls ({name})"] += 1

    def remap(self, call_id: str, name: str, input: dict[str, Any]) -> None:
        """Make an open call of the open step our tool ``name`` with ``input``: its result told what
        it really did (the diff an edit made)."""
        step = self.step
        if step is None or call_id not in step.open_calls:
            return
        for i, (event, at) in enumerate(step.parts):
            if isinstance(event, ev.ToolCalled) and event.call_id == call_id:
                if "foreign_name" in event.call_meta:
                    self.mapped["foreign tool calls"] -= 1
                    self.mapped[f"tool calls ({name})"] += 1
                meta = {"imported_from": self.agent}
                step.parts[i] = (event.model_copy(update={"name": name, "input": input, "call_meta": meta}), at)
                step.open_calls[call_id] = name

    def result(
        self,
        call_id: str,
        text: str,
        *,
        ok: bool = True,
        images: list[dict[str, Any]] | None = None,
        data: dict[str, Any] | None = None,
        at: int | None = None,
    ) -> None:
        step = self.step
        if step is None or call_id not in step.open_calls:
            self.note(f"a tool result for call {call_id}, which no earlier step of the file made, was left out", at)
            return
        del step.open_calls[call_id]
        amid, when = step.id, self._at(at)
        if ok:
            output = ToolOutput(text=text, images=images or [], data=data or {})
            step.parts.append((ev.ToolSucceeded(assistant_message_id=amid, call_id=call_id, output=output), when))
            self.mapped["images"] += len(images or [])
        else:
            error = ErrorInfo(type=ErrorType.TOOL_EXECUTION, message=text)
            step.parts.append((ev.ToolFailed(assistant_message_id=amid, call_id=call_id, error=error), when))
        self.mapped["tool results"] += 1

    def usage(self, usage: Usage, *, seal: bool = True) -> None:
        if self.step is not None:
            self.step.usage = usage
            self.step.sealed = self.step.sealed or seal

    def drop_step_if_only(self, text: str) -> bool:
        """Forget the open step when all it holds is text within ``text`` (a compaction's own summary reply)."""
        step = self.step
        if (
            step is None
            or step.open_calls
            or step.notes
            or not step.text
            or not all(t.strip() in text for t in step.text)
        ):
            return False
        if len(step.parts) != 1 + 2 * len(step.text):
            return False
        self.step = None
        self.mapped["assistant messages"] -= 1
        return True

    def close_step(self) -> None:
        step, self.step = self.step, None
        if step is None:
            return
        self.events += step.parts
        stale = ErrorInfo(type=ErrorType.TOOL_STALE, message=TOOL_INTERRUPTED)
        at = self.last_at
        self.events += [
            (ev.ToolFailed(assistant_message_id=step.id, call_id=c, error=stale), at) for c in step.open_calls
        ]
        self.events.append((ev.StepEnded(assistant_message_id=step.id, finish="stop", usage=step.usage or Usage()), at))
        self.events += step.notes
        self.mapped["token usage"] += step.usage is not None

    # -- compaction --------------------------------------------------------------------
    def compaction(self, summary: str, *, manual: bool, at: int | None) -> None:
        self.close_step()
        at = self._at(at)
        mid, reason = ids.message_id(), CompactionReason.MANUAL if manual else CompactionReason.AUTO
        self.events += [
            (ev.CompactionStarted(message_id=mid, reason=reason), at),
            (ev.CompactionEnded(message_id=mid, reason=reason, summary=summary, recent=""), at),
        ]
        self.mapped["compactions"] += 1

    # -- the result ----------------------------------------------------------------------
    def finish(
        self, *, source_id: str, location: str, path: str, version: str | None, title: str | None = None
    ) -> Imported:
        self.close_step()
        return Imported(
            agent=self.agent,
            source_id=source_id,
            location=location,
            path=path,
            version=version,
            title=title or self.title,
            model=self.model,
            events=self.events,
            mapped=+self.mapped,
            notes=self.notes,
            children=self.children,
        )


def usage_of(counts: dict[str, Any], **keys: str) -> Usage:
    """A step's usage from the source's token counts: ``keys`` names, for each of our fields, the
    source's key (an absent or null count is 0)."""
    return Usage(**{ours: int(counts.get(theirs) or 0) for ours, theirs in keys.items()})


def add_subagent(draft: Draft, child: Imported, call_id: str, agent: str) -> None:
    """Keep a subagent's own session (read into ``child``) as a child session of the draft's, spawned
    by its call ``call_id``; its tally and notes count in the parent's report (the notes named by
    the child's title)."""
    child.spawned_by_call, child.subagent = call_id, agent
    draft.children.append(child)
    draft.mapped["subagent sessions"] += 1
    draft.mapped.update(child.mapped)
    draft.notes += [f"subagent {child.title or call_id!r}: {note}" for note in child.notes]


def refuse_unknown_version(path: str, label: str, version: str, majors: tuple[str, ...]) -> None:
    """A session file written by a major version of the agent whose format this build does not know is
    refused, naming both (a guess at a changed format would import it wrong without a word)."""
    if version.split(".")[0] not in majors:
        raise UnreadableSession(
            f"{path}: {label} {version or '(no version)'} wrote this session; this build reads the format of"
            f" {label} {'.x, '.join(majors)}.x"
        )
