"""Event schema: durable session events and live-only deltas.

Durable events are stored as ``(session_id, seq, type, created_ms, data_json)``;
``type`` carries a version suffix (``session.step.started.1``). Each durable type
is one pydantic model whose ``TYPE`` names it. Reads ignore unknown fields
(forward compatibility) and keep unknown types as :class:`UnknownEvent`, which
projectors skip.

Live-only deltas travel on the in-process bus and are never stored; the
matching ``.ended``/settlement event carries the full value.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import CompactionReason, Delivery, InterruptReason, PermissionReply
from agent_tui.vocab.tool_output import ToolOutput
from agent_tui.vocab.usage import Usage


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


# --------------------------------------------------------------------------
# Prompts


class TextPart(_Model):
    type: Literal["text"] = "text"
    text: str


class FilePart(_Model):
    """A mentioned file or folder; ``text`` is what the model sees, read when it was sent,
    so a replay shows the same text after the file changed."""

    type: Literal["file"] = "file"
    path: str
    mime: str | None = None
    text: str | None = None


class ImagePart(_Model):
    """An attached image; ``data`` (base64) is kept in the log for the same reason."""

    type: Literal["image"] = "image"
    path: str
    mime: str
    data: str | None = None
    size: int | None = None
    width: int | None = None
    height: int | None = None


class AgentPart(_Model):
    """A mentioned subagent (``@explore``); ``text`` is the guidance the model is sent (call ``task``
    with it), kept as sent so a replay asks the same; never part of what the user typed."""

    type: Literal["agent"] = "agent"
    name: str
    text: str


class ResourcePart(_Model):
    """A mentioned MCP resource (``@server:uri``); ``text`` is what the model sees, read from the
    server when the prompt was sent (cut like a mentioned file), so a replay shows the same text."""

    type: Literal["resource"] = "resource"
    server: str
    uri: str
    mime: str | None = None
    text: str

    @property
    def mention(self) -> str:
        """``server:uri``, as typed after the ``@``."""
        return f"{self.server}:{self.uri}"


PromptPart = Annotated[TextPart | FilePart | ImagePart | AgentPart | ResourcePart, Field(discriminator="type")]


def text_prompt(text: str) -> list[PromptPart]:
    return [TextPart(text=text)]


def prompt_text(prompt: Sequence[PromptPart | dict[str, Any]]) -> str:
    """The plain text of a prompt: its text parts, and each file or image part as ``@path`` (an
    agent part as ``@name``, never its guidance; a resource part as ``@server:uri``) unless the text
    already mentions it.

    The one rendering of a prompt as text, for parsed parts and for the stored JSON alike:
    titles, the TUI's pending rows (folded or seeded), exports and compaction's input all
    show the same words for the same prompt.
    """
    out: list[str] = []
    for part in prompt:
        match part:
            case TextPart(text=text) | {"type": "text", "text": str() as text}:
                out.append(text)
            case FilePart(path=path) | ImagePart(path=path) | {"type": "file" | "image", "path": str() as path}:
                if not any(f"@{path}" in line or f'@"{path}"' in line for line in out):
                    out.append(f"@{path}")
            case AgentPart(name=name) | {"type": "agent", "name": str() as name}:
                if not any(f"@{name}" in line for line in out):
                    out.append(f"@{name}")
            case ResourcePart(server=server, uri=uri) | {
                "type": "resource",
                "server": str() as server,
                "uri": str() as uri,
            }:
                if not any(f"@{server}:{uri}" in line for line in out):
                    out.append(f'@"{server}:{uri}"' if any(c.isspace() for c in uri) else f"@{server}:{uri}")
    return "\n".join(out)


# --------------------------------------------------------------------------
# Durable events


class DurableEvent(_Model):
    TYPE: ClassVar[str] = ""


class SpawnedBy(_Model):
    """Where a subagent's session comes from: the parent session and its ``task`` call.

    Not a fork's lineage (``parent_id``): a child shares no history with its parent."""

    session_id: str
    assistant_message_id: str
    call_id: str


class ImportedFrom(_Model):
    """Where an imported session came from: another agent's session (``agent-tui import --from``).

    ``agent`` is the source format (``claude``, ``codex``), ``id`` its session id there: the key
    that keeps importing the same session twice from making two."""

    agent: str
    id: str
    path: str | None = None
    version: str | None = None


class SessionCreated(DurableEvent):
    TYPE: ClassVar[str] = "session.created.1"
    location: str
    project_root: str
    title: str | None = None
    agent: str = "build"
    model: str | None = None
    parent_id: str | None = None
    spawned_by: SpawnedBy | None = None
    imported_from: ImportedFrom | None = None


class SessionRenamed(DurableEvent):
    TYPE: ClassVar[str] = "session.renamed.1"
    title: str


class AgentSelected(DurableEvent):
    TYPE: ClassVar[str] = "session.agent.selected.1"
    agent: str


class ModelSelected(DurableEvent):
    TYPE: ClassVar[str] = "session.model.selected.1"
    model: str


class SessionMoved(DurableEvent):
    TYPE: ClassVar[str] = "session.moved.1"
    location: str
    project_root: str


class SessionForked(DurableEvent):
    TYPE: ClassVar[str] = "session.forked.1"
    parent_id: str
    parent_seq: int


class PromptAdmitted(DurableEvent):
    TYPE: ClassVar[str] = "session.prompt.admitted.1"
    input_id: str
    prompt: list[PromptPart]
    delivery: Delivery = Delivery.STEER


class PromptPromoted(DurableEvent):
    TYPE: ClassVar[str] = "session.prompt.promoted.1"
    input_id: str


class PromptWithdrawn(DurableEvent):
    TYPE: ClassVar[str] = "session.prompt.withdrawn.1"
    input_id: str


class QueueReordered(DurableEvent):
    """The user's new order of the queued inputs (all of them); the runner promotes in it."""

    TYPE: ClassVar[str] = "session.queue.reordered.1"
    order: list[str]


class QueuePaused(DurableEvent):
    """While paused, no queued input is promoted when the session goes idle (steers still are)."""

    TYPE: ClassVar[str] = "session.queue.paused.1"
    paused: bool


class ShellAdmitted(DurableEvent):
    """``!command`` typed by the user: run through the bash tool when the session would go idle."""

    TYPE: ClassVar[str] = "session.shell.admitted.1"
    input_id: str
    command: str


class ShellEnded(DurableEvent):
    """The user's command ran (or failed, or was interrupted); the model reads it next turn."""

    TYPE: ClassVar[str] = "session.shell.ended.1"
    input_id: str
    command: str
    output: ToolOutput | None = None
    error: ErrorInfo | None = None


class ContextPut(DurableEvent):
    TYPE: ClassVar[str] = "session.context.put.1"
    key: str
    value: Any


class ContextDeleted(DurableEvent):
    TYPE: ClassVar[str] = "session.context.deleted.1"
    key: str


class InstructionsBaselined(DurableEvent):
    TYPE: ClassVar[str] = "session.instructions.baselined.1"
    baseline: str
    applied: dict[str, Any] = Field(default_factory=dict)


class InstructionsReset(DurableEvent):
    TYPE: ClassVar[str] = "session.instructions.reset.1"


class InstructionsUpdated(DurableEvent):
    """A chronological system message; advances ``applied`` atomically.

    ``source`` names who wrote a message that is no instruction update: ``import`` for an
    importer's note about what it could not map (``agent-tui import --from``)."""

    TYPE: ClassVar[str] = "session.instructions.updated.1"
    message_id: str
    text: str
    applied: dict[str, Any] = Field(default_factory=dict)
    source: str | None = None


class PermissionAsked(DurableEvent):
    TYPE: ClassVar[str] = "session.permission.asked.1"
    request_id: str
    assistant_message_id: str | None = None
    call_id: str | None = None
    action: str
    resources: list[str] = Field(default_factory=list)
    save: list[str] = Field(default_factory=list)
    detail: dict[str, Any] = Field(default_factory=dict)


class PermissionReplied(DurableEvent):
    TYPE: ClassVar[str] = "session.permission.replied.1"
    request_id: str
    reply: PermissionReply
    message: str | None = None


class ElicitationAsked(DurableEvent):
    """An MCP server asked the user something during a tool call: a form (``schema``) or a page to open
    (``url``). History only: the question lives while its call does (``core.host.elicitations``)."""

    TYPE: ClassVar[str] = "session.elicitation.asked.1"
    request_id: str
    assistant_message_id: str | None = None
    call_id: str | None = None
    server: str
    mode: Literal["form", "url"] = "form"
    message: str
    requested_schema: dict[str, Any] = Field(default_factory=dict)
    url: str | None = None


class ElicitationAnswered(DurableEvent):
    """The answer the server got: ``content`` only with ``accept`` of a form; ``reason`` when no one was
    asked (a headless run) or the call ended first."""

    TYPE: ClassVar[str] = "session.elicitation.answered.1"
    request_id: str
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None
    reason: str | None = None


class SamplingAsked(DurableEvent):
    """An MCP server (configured with ``sampling = true``) asked to use the session's model during a tool
    call. History only: the request lives while its call does (``core.host.samplings``)."""

    TYPE: ClassVar[str] = "session.sampling.asked.1"
    request_id: str
    assistant_message_id: str | None = None
    call_id: str | None = None
    server: str
    system_prompt: str | None = None
    messages: list[dict[str, str]] = Field(default_factory=list)
    """``{"role", "text"}`` each; an image or audio part is a line saying what it was."""
    max_tokens: int
    temperature: float | None = None
    stop_sequences: list[str] = Field(default_factory=list)
    model_preferences: dict[str, Any] = Field(default_factory=dict)
    """Recorded only: the session's model answers whatever the server prefers."""


class SamplingAnswered(DurableEvent):
    """How it ended: ``approve`` (the model's ``text``, what it spent: a ``step_usage`` row), ``decline``
    (the user, or no one to ask: ``reason``; also the model failing after approval) or ``cancel`` (the call ended)."""

    TYPE: ClassVar[str] = "session.sampling.answered.1"
    request_id: str
    action: Literal["approve", "decline", "cancel"]
    reason: str | None = None
    text: str | None = None
    model: str | None = None
    stop_reason: str | None = None
    usage: Usage | None = None
    cost: float | None = None
    cost_source: str | None = None


class CompactionAdmitted(DurableEvent):
    TYPE: ClassVar[str] = "session.compaction.admitted.1"
    input_id: str


class CompactionStarted(DurableEvent):
    TYPE: ClassVar[str] = "session.compaction.started.1"
    message_id: str
    reason: CompactionReason
    input_id: str | None = None


class CompactionEnded(DurableEvent):
    TYPE: ClassVar[str] = "session.compaction.ended.1"
    message_id: str
    reason: CompactionReason
    summary: str
    recent: str
    input_id: str | None = None
    model: str | None = None
    """The model that wrote the summary; with ``usage``, ``cost`` and ``cost_source`` what its call
    spent, as a step records it (all None in logs written before compactions recorded usage)."""
    usage: Usage | None = None
    cost: float | None = None
    cost_source: str | None = None


class CompactionFailed(DurableEvent):
    TYPE: ClassVar[str] = "session.compaction.failed.1"
    message_id: str | None = None
    reason: CompactionReason
    error: ErrorInfo
    input_id: str | None = None
    model: str | None = None
    usage: Usage | None = None
    """A summary call that streamed to its end and still failed (empty, filtered) was billed."""
    cost: float | None = None
    cost_source: str | None = None


class StepStarted(DurableEvent):
    TYPE: ClassVar[str] = "session.step.started.1"
    assistant_message_id: str
    agent: str
    model: str
    attempt: int = 1


class TextStarted(DurableEvent):
    TYPE: ClassVar[str] = "session.text.started.1"
    assistant_message_id: str
    ordinal: int


class TextEnded(DurableEvent):
    TYPE: ClassVar[str] = "session.text.ended.1"
    assistant_message_id: str
    ordinal: int
    text: str


class ReasoningStarted(DurableEvent):
    TYPE: ClassVar[str] = "session.reasoning.started.1"
    assistant_message_id: str
    ordinal: int


class ReasoningEnded(DurableEvent):
    TYPE: ClassVar[str] = "session.reasoning.ended.1"
    assistant_message_id: str
    ordinal: int
    text: str
    provider_meta: dict[str, Any] = Field(default_factory=dict)


class ToolCalled(DurableEvent):
    TYPE: ClassVar[str] = "session.tool.called.1"
    assistant_message_id: str
    call_id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)
    hosted: bool = False
    call_meta: dict[str, Any] = Field(default_factory=dict)


class ToolSucceeded(DurableEvent):
    TYPE: ClassVar[str] = "session.tool.success.1"
    assistant_message_id: str
    call_id: str
    output: ToolOutput
    result_meta: dict[str, Any] = Field(default_factory=dict)


class ToolFailed(DurableEvent):
    TYPE: ClassVar[str] = "session.tool.failed.1"
    assistant_message_id: str
    call_id: str
    error: ErrorInfo
    result_meta: dict[str, Any] = Field(default_factory=dict)


class StepEnded(DurableEvent):
    TYPE: ClassVar[str] = "session.step.ended.1"
    assistant_message_id: str
    finish: str
    usage: Usage = Field(default_factory=Usage)
    cost: float | None = None
    cost_source: str | None = None
    """``vocab.usage.CostSource`` ("provider", "config", "price_map"); None with an unknown cost,
    and in logs written before sources were recorded. A plain string: a newer build's source still reads."""


class StepFailed(DurableEvent):
    TYPE: ClassVar[str] = "session.step.failed.1"
    assistant_message_id: str
    error: ErrorInfo
    usage: Usage | None = None
    cost: float | None = None
    """A failed attempt that streamed to its end (content filter, a refused settlement) was still billed."""
    cost_source: str | None = None


class RetryScheduled(DurableEvent):
    TYPE: ClassVar[str] = "session.retry.scheduled.1"
    assistant_message_id: str
    attempt: int
    at_ms: int
    error: ErrorInfo


class ExecutionStarted(DurableEvent):
    TYPE: ClassVar[str] = "session.execution.started.1"


class ExecutionSucceeded(DurableEvent):
    TYPE: ClassVar[str] = "session.execution.succeeded.1"


class ExecutionFailed(DurableEvent):
    TYPE: ClassVar[str] = "session.execution.failed.1"
    error: ErrorInfo


class ExecutionInterrupted(DurableEvent):
    TYPE: ClassVar[str] = "session.execution.interrupted.1"
    reason: InterruptReason = InterruptReason.USER


class WorkspaceSnapshotted(DurableEvent):
    """The location's files just before a tool that may change them (bash, apply_patch, MCP tools) ran.

    ``snapshot_id`` names a tree in agent-tui's snapshot store; without one,
    ``error`` says why (once per reason and process, before the call runs).
    """

    TYPE: ClassVar[str] = "session.snapshot.taken.1"
    assistant_message_id: str
    call_id: str
    snapshot_id: str | None = None
    error: str | None = None


class ChangedFile(_Model):
    path: str
    change: Literal["created", "modified", "deleted"]


class FilesRestored(_Model):
    """A file restore: the snapshot restored, the snapshot of the state it replaced, what changed."""

    target: str
    before: str
    changed: list[ChangedFile] = Field(default_factory=list)


class SessionRewound(DurableEvent):
    """Back to just before the user message ``message_id`` (promoted at ``boundary_seq``).

    With ``conversation`` the projections hide every message from the boundary
    on (the events stay), withdraw unpromoted input and reset the instruction
    checkpoint; ``files`` records a restore of the location, if one was made.
    """

    TYPE: ClassVar[str] = "session.rewound.1"
    message_id: str
    boundary_seq: int
    conversation: bool = True
    files: FilesRestored | None = None


class RewindUndone(DurableEvent):
    """The rewind at ``rewind_seq`` is taken back: projections as if it never happened."""

    TYPE: ClassVar[str] = "session.rewind.undone.1"
    rewind_seq: int
    files: FilesRestored | None = None


HookOutcome = Literal["ok", "blocked", "warning", "timeout", "interrupted"]


class HookRan(DurableEvent):
    """A configured hook command ran (``[[hooks]]`` or a trusted project's ``.claude/settings.json``).

    ``outcome``: ``ok`` (exit 0), ``blocked`` (exit 2: ``message`` is the reason), ``warning`` (any
    other exit, or a hook that could not start), ``timeout`` (its process group was killed) or
    ``interrupted``. ``context`` is text the model reads (a hook's stdout for ``session_start`` and
    ``user_prompt``, a blocked ``stop``'s reason): it is projected as the system message ``message_id``.
    """

    TYPE: ClassVar[str] = "session.hook.ran.1"
    hook_event: str
    command: str
    outcome: HookOutcome
    exit_code: int | None = None
    message: str | None = None
    context: str | None = None
    message_id: str | None = None
    tool_name: str | None = None
    assistant_message_id: str | None = None
    call_id: str | None = None
    duration_ms: int = 0


class UnknownEvent(DurableEvent):
    """A stored event of a type this build does not know: kept, skipped."""

    model_config = ConfigDict(extra="allow", frozen=True)
    TYPE: ClassVar[str] = ""


DURABLE_EVENTS: tuple[type[DurableEvent], ...] = (
    SessionCreated,
    SessionRenamed,
    AgentSelected,
    ModelSelected,
    SessionMoved,
    SessionForked,
    PromptAdmitted,
    PromptPromoted,
    PromptWithdrawn,
    QueueReordered,
    QueuePaused,
    ShellAdmitted,
    ShellEnded,
    ContextPut,
    ContextDeleted,
    InstructionsBaselined,
    InstructionsReset,
    InstructionsUpdated,
    PermissionAsked,
    PermissionReplied,
    ElicitationAsked,
    ElicitationAnswered,
    SamplingAsked,
    SamplingAnswered,
    CompactionAdmitted,
    CompactionStarted,
    CompactionEnded,
    CompactionFailed,
    StepStarted,
    TextStarted,
    TextEnded,
    ReasoningStarted,
    ReasoningEnded,
    ToolCalled,
    ToolSucceeded,
    ToolFailed,
    StepEnded,
    StepFailed,
    RetryScheduled,
    ExecutionStarted,
    ExecutionSucceeded,
    ExecutionFailed,
    ExecutionInterrupted,
    WorkspaceSnapshotted,
    SessionRewound,
    RewindUndone,
    HookRan,
)

EVENT_TYPES: dict[str, type[DurableEvent]] = {cls.TYPE: cls for cls in DURABLE_EVENTS}


class MalformedEvent(ValueError):
    """A payload that does not fit its known event type."""


def encode(event: DurableEvent) -> tuple[str, str]:
    """``(type, data_json)`` for storage."""
    if isinstance(event, UnknownEvent):
        raise MalformedEvent("cannot publish an event of unknown type")
    return event.TYPE, event.model_dump_json(exclude_none=False)


def decode(type_: str, data: str | bytes | dict[str, Any]) -> DurableEvent:
    """Parse a stored event. Unknown types become :class:`UnknownEvent`."""
    payload = json.loads(data) if isinstance(data, (str, bytes)) else data
    cls = EVENT_TYPES.get(type_)
    if cls is None:
        return UnknownEvent.model_validate(payload if isinstance(payload, dict) else {})
    try:
        return cls.model_validate(payload)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(payload)"
        raise MalformedEvent(f"malformed {type_} event: {key}: {first['msg']}") from None


class StoredEvent(_Model):
    """One row of the log, as ``agent-tui log`` prints it."""

    session_id: str
    seq: int
    type: str
    created: int
    event: DurableEvent

    def to_json_line(self, *, with_session: bool = False) -> str:
        """``{seq, type, created, data}``; ``with_session``: ``session_id`` first (``run --format json``,
        whose live lines carry it too)."""
        data = self.event.model_dump(mode="json")
        if isinstance(self.event, UnknownEvent):
            data = dict(self.event.model_extra or {})
        head = {"session_id": self.session_id} if with_session else {}
        return json.dumps(
            {**head, "seq": self.seq, "type": self.type, "created": self.created, "data": data},
            ensure_ascii=False,
        )


# --------------------------------------------------------------------------
# Live-only events (the in-process bus; never stored)


class LiveEvent(_Model):
    session_id: str


class TextDelta(LiveEvent):
    kind: Literal["text.delta"] = "text.delta"
    assistant_message_id: str
    ordinal: int
    delta: str


class ReasoningDelta(LiveEvent):
    kind: Literal["reasoning.delta"] = "reasoning.delta"
    assistant_message_id: str
    ordinal: int
    delta: str


class ToolInputStarted(LiveEvent):
    """The model began writing a tool call; ``index`` orders calls in the step."""

    kind: Literal["tool.input.started"] = "tool.input.started"
    assistant_message_id: str
    index: int
    call_id: str | None = None
    name: str | None = None


class ToolInputDelta(LiveEvent):
    kind: Literal["tool.input.delta"] = "tool.input.delta"
    assistant_message_id: str
    index: int
    call_id: str | None = None
    delta: str


class ToolOutputDelta(LiveEvent):
    """Live output of a running tool (bash stdout/stderr)."""

    kind: Literal["tool.output.delta"] = "tool.output.delta"
    assistant_message_id: str
    call_id: str
    delta: str


class CompactionDelta(LiveEvent):
    kind: Literal["compaction.delta"] = "compaction.delta"
    message_id: str
    delta: str


class HeadAdvanced(LiveEvent):
    """Post-commit notification: re-read the store up to ``head_seq``."""

    kind: Literal["head"] = "head"
    head_seq: int


LIVE_EVENTS: tuple[type[LiveEvent], ...] = (
    TextDelta,
    ReasoningDelta,
    ToolInputStarted,
    ToolInputDelta,
    ToolOutputDelta,
    CompactionDelta,
    HeadAdvanced,
)
