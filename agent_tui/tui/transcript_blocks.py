"""Block view-models: what the transcript shows, independent of Textual.

Each block has a stable ``key`` (its identity across reloads), the ``seq`` of the
durable event that created it (ordering), and a ``version`` the transcript bumps
on every change so a widget repaints only when its block changed. ``live`` is set
by the transcript from the coordinator's ``active()``: the log alone never makes a
spinner spin.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from agent_tui.tui.block_keys import BlockKey


class ToolState(StrEnum):
    INPUT = "input"  # the model is still writing the call
    RUNNING = "running"
    OK = "ok"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class CompactionState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


@dataclass(eq=False)
class Block:
    key: BlockKey
    seq: int
    version: int = 0
    live: bool = False

    def touch(self) -> None:
        self.version += 1


@dataclass(eq=False)
class UserBlock(Block):
    text: str = ""
    attachments: str = ""  # one chip per attached file, folder or image (see ``transcript.inbox.chips``)


@dataclass(eq=False)
class TextBlock(Block):
    """One assistant text fragment (``reasoning`` for a reasoning fragment).

    Deltas are kept as parts and joined when the text is read (once per repaint),
    so a long answer costs linear time, not a copy of the whole text per token.
    """

    open: bool = True
    reasoning: bool = False
    _parts: list[str] = field(default_factory=list, repr=False)

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @text.setter
    def text(self, value: str) -> None:
        self._parts[:] = [value]

    def append(self, delta: str) -> None:
        self._parts.append(delta)


@dataclass(frozen=True)
class SubagentProgress:
    """A ``task`` call's child session as its block shows it while it runs (``tui/child_progress.py``)."""

    action: str
    """What it does now: ``bash  make test``, ``thinking``, ``writing``, ``waiting for the model``."""
    tools: int
    """Tool calls it has made so far."""
    tokens: int
    """Input and output tokens of its finished steps (the log has usage per step, not per delta)."""


@dataclass(eq=False)
class ToolBlock(Block):
    call_id: str | None = None
    name: str = ""
    input: dict = field(default_factory=dict)
    _input_parts: list[str] = field(default_factory=list, repr=False)  # arguments as the model writes them
    state: ToolState = ToolState.INPUT
    started_ms: int | None = None
    ended_ms: int | None = None
    output: str = ""
    live_output: str = ""  # a bounded tail: the settled output carries the whole result
    error: str | None = None
    unsnapshotted: str | None = None  # why no snapshot was taken before it ran (a rewind cannot undo it)
    child_session: str | None = None  # a ``task`` call's subagent session, once known
    subagent: SubagentProgress | None = None  # a running ``task`` call's child, followed live
    awaiting_permission: bool = False  # its ask is open: the panel shows the diff, the block does not

    LIVE_OUTPUT_CHARS: ClassVar[int] = 16_384

    def append_live_output(self, delta: str) -> None:
        """Keep only the tail a user can see while a command runs (an hour of output stays small)."""
        self.live_output = (self.live_output + delta)[-self.LIVE_OUTPUT_CHARS :]

    @property
    def shown_state(self) -> ToolState:
        if self.state in (ToolState.INPUT, ToolState.RUNNING) and not self.live:
            return ToolState.INTERRUPTED
        return self.state

    @property
    def duration_ms(self) -> int | None:
        if self.started_ms is None or self.ended_ms is None:
            return None
        return max(0, self.ended_ms - self.started_ms)

    @property
    def input_text(self) -> str:
        """The raw arguments streamed so far (JSON, usually incomplete)."""
        if len(self._input_parts) > 1:
            self._input_parts[:] = ["".join(self._input_parts)]
        return self._input_parts[0] if self._input_parts else ""

    def append_input(self, delta: str) -> None:
        self._input_parts.append(delta)

    @property
    def summary(self) -> str:
        if self.input:
            return summarize_args(self.name, self.input)
        raw = self.input_text
        for key in ("command", "path", "patch"):  # a call still being written: what it has so far
            value = partial_json_string(raw, key)
            if value is not None:
                return summarize_args(self.name, {key: value})
        return summarize_args(self.name, {}, raw)

    @property
    def patch(self) -> str | None:
        """The patch of an ``apply_patch`` call; while the model still writes it, what it has so far."""
        if self.name != "apply_patch":
            return None
        patch = self.input.get("patch")
        if isinstance(patch, str):
            return patch
        return partial_json_string(self.input_text, "patch") if self.state is ToolState.INPUT else None


@dataclass(eq=False)
class InstructionBlock(Block):
    text: str = ""
    source: str | None = None  # "import": an importer's note, shown open


@dataclass(eq=False)
class CompactionBlock(Block):
    message_id: str | None = None
    input_id: str | None = None
    reason: str = "manual"
    state: CompactionState = CompactionState.QUEUED
    summary: str = ""
    error: str | None = None

    @property
    def shown_state(self) -> CompactionState:
        if self.state is CompactionState.RUNNING and not self.live:
            return CompactionState.INTERRUPTED
        return self.state


@dataclass(eq=False)
class ErrorBlock(Block):
    error_type: str = ""
    message: str = ""


@dataclass(eq=False)
class HookBlock(Block):
    """A configured hook ran: its event, command, outcome (``ok``, ``blocked``, ``warning``, ``timeout``,
    ``interrupted``), the reason or warning, and what the model was told."""

    event: str = ""
    command: str = ""
    outcome: str = "ok"
    tool_name: str | None = None
    message: str | None = None
    context: str | None = None


@dataclass(eq=False)
class RetryBlock(Block):
    attempt: int = 1
    at_ms: int = 0
    error_type: str = ""
    message: str = ""


_PARTIAL_KEY = re.compile(r'"(?P<key>[A-Za-z_]+)"\s*:\s*"')


def partial_json_string(raw: str, key: str) -> str | None:
    """The (possibly unfinished) string value of ``key`` in streamed JSON arguments."""
    for match in _PARTIAL_KEY.finditer(raw):
        if match.group("key") != key:
            continue
        body, escaped = [], False
        for ch in raw[match.end() :]:
            if escaped:
                body.append(ch)
                escaped = False
            elif ch == "\\":
                body.append(ch)
                escaped = True
            elif ch == '"':
                break
            else:
                body.append(ch)
        text = "".join(body[:-1] if escaped else body)  # drop a half-written escape
        try:
            return json.loads(f'"{text}"')
        except json.JSONDecodeError:  # a half-written \uXXXX: show what decodes
            return json.loads(f'"{text[: text.rfind(chr(92))]}"') if "\\" in text else None
    return None


def _one_line(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def summarize_args(name: str, args: dict, raw: str = "") -> str:
    """A one-line argument summary: the command, the path, the patched files."""
    match name, args:
        case "bash" | "!", {"command": str(command)}:  # "!": the user's own command
            return _one_line(command)
        case "read", {"path": str(path)}:
            return path
        case "task", {"agent": str(agent), "description": str(description)}:
            return _one_line(f"{agent}: {description}")
        case "apply_patch", {"patch": str(patch)}:
            files = [
                line.split(":", 1)[1].strip()
                for line in patch.splitlines()
                if line.startswith(("*** Update File:", "*** Add File:", "*** Delete File:"))
            ]
            return _one_line(", ".join(files) or "patch")
        case _, dict() if args:
            return _one_line(json.dumps(args, ensure_ascii=False))
    return _one_line(raw)
