"""Request and response bodies of the HTTP API (pydantic at the boundary).

Query strings are parsed with the same models as JSON bodies: every value
arrives as a string and pydantic's lax mode turns ``"20"`` into ``20`` and
``"1"`` into ``True``. Unknown fields are refused, so a typo is a clear 400
instead of a silently ignored filter.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.core.api import (
    FilesPreview,
    InboxRecord,
    MessageRecord,
    PermissionRecord,
    Receipt,
    RewindPoint,
    RewindResult,
    SessionRecord,
    SessionSummary,
)
from agent_tui.vocab.kinds import McpState

ID_PATTERN = r"^[A-Za-z0-9_.\-]{1,128}$"
"""What a client may name a session or an input: generated ids (``ses_…``, see ``core/ids.py``) match it too."""
IdText = Field(default=None, pattern=ID_PATTERN)
Name = Field(min_length=1, max_length=200)
SQLITE_INT_MAX = 2**63 - 1
"""Sequence numbers and offsets reach SQLite: a larger integer is a 400, not an OverflowError."""

T = TypeVar("T")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- requests -------------------------------------------------------------------


class CreateSession(_Body):
    id: str | None = IdText
    location: str = Field(min_length=1)
    title: str | None = None
    agent: str | None = None
    model: str | None = None


class PromptBody(_Body):
    id: str | None = IdText
    prompt: str | list[dict[str, Any]]
    delivery: Literal["steer", "queue"] = "steer"
    resume: bool = True
    agent: str | None = Field(default=None, min_length=1, max_length=200)
    """Select this agent first (durable; it applies from the session's next step)."""
    output_schema: dict[str, Any] | None = None
    """A JSON Schema the session's final answer must match from its next step (structured output:
    read it at ``/answer``); ``null`` stops requiring one; absent leaves the session as it is."""


class QueueOrderBody(_Body):
    order: list[str] = Field(description="every queued input id of the session, once, in the new order")


class QueuePausedBody(_Body):
    paused: bool


class CompactBody(_Body):
    resume: bool = True


class ModelBody(_Body):
    model: str = Name


class RenameBody(_Body):
    title: str = Field(min_length=1, max_length=1000)


class AgentBody(_Body):
    agent: str = Name


class PermissionReplyBody(_Body):
    reply: Literal["once", "always", "reject"]
    message: str | None = None


class RewindBody(_Body):
    message_id: str = Field(pattern=ID_PATTERN)
    mode: Literal["both", "conversation", "files"] = "both"


class ForkBody(_Body):
    at: str | None = Field(default=None, pattern=ID_PATTERN)
    """Fork from just before this prompt (a user message id); absent: the whole history."""


class PreviewQuery(_Body):
    message_id: str = Field(pattern=ID_PATTERN)


class ListQuery(_Body):
    location: str | None = None
    search: str | None = Field(default=None, pattern=r"^[^\x00]*$")
    """No NUL: SQLite's full-text query syntax cannot hold one."""
    limit: int = Field(default=50, ge=1, le=500)
    offset: int = Field(default=0, ge=0, le=SQLITE_INT_MAX)
    top_level: bool = False
    """Leave out subagents' sessions (``GET /api/session/{id}/children`` lists a session's)."""


class HistoryQuery(_Body):
    after: int | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)
    limit: int = Field(default=50, ge=1, le=100)


class MessagesQuery(_Body):
    after: int | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)
    before: int | None = Field(default=None, ge=1, le=SQLITE_INT_MAX)
    limit: int = Field(default=100, ge=1, le=1000)


class AnswerQuery(_Body):
    after: int = Field(default=0, ge=0, le=SQLITE_INT_MAX)


class LogQuery(_Body):
    after: int | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)
    follow: bool = False
    deltas: bool = False


# -- responses ------------------------------------------------------------------


class Listing(BaseModel, Generic[T]):
    """A list response; ``has_more`` says whether another page exists."""

    data: list[T]
    has_more: bool = False


class SessionList(Listing[SessionSummary]):
    pass


class MessageList(Listing[MessageRecord]):
    pass


class PendingList(Listing[InboxRecord]):
    pass


class PermissionList(Listing[PermissionRecord]):
    pass


class Question(BaseModel):
    """An MCP server's open question to the user (elicitation), waiting in a tool call."""

    request_id: str
    session_id: str
    server: str
    mode: Literal["form", "url"]
    message: str
    requested_schema: dict[str, Any] = Field(default_factory=dict)
    """A form's JSON Schema: flat, primitive properties (string, number, integer, boolean, enum)."""
    url: str | None = None
    """The page to open (``url`` mode)."""
    answer_within_s: float | None = None
    """Declined for the user when no answer comes within this many seconds of the question."""


class QuestionList(Listing[Question]):
    pass


class QuestionAnswerBody(_Body):
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None
    """A form's values by property name (``accept`` only); checked like the TUI's dialog."""


class QuestionAnswer(BaseModel):
    """What the server was sent: ``content`` is the form's values as checked (``accept`` of a form)."""

    request_id: str
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


class McpLogMessage(BaseModel):
    """One message an MCP server logged (``notifications/message``)."""

    at: int
    """When it arrived, in milliseconds since the epoch."""
    level: str
    """debug, info, notice, warning, error, critical, alert or emergency."""
    logger: str | None = None
    text: str


class McpResource(BaseModel):
    """One resource an MCP server listed, or a resource template (``uri`` is then its URI template)."""

    uri: str
    name: str
    description: str = ""
    mime: str | None = None
    template: bool = False
    """``uri`` is an RFC 6570 template (``notes://day/{n}``): a family of resources, read by filling it in."""


class McpServer(BaseModel):
    """One MCP server this process has started (or tried to) at one location."""

    name: str
    location: str
    transport: Literal["stdio", "http", "sse"]
    state: McpState
    tools: list[str]
    error: str | None = None
    """Why it failed, with the tail of its stderr."""
    sandboxed: bool = False
    """Its process runs in the command sandbox (the server's ``sandbox = true``)."""
    logs: list[McpLogMessage] = []
    """What it logged lately, oldest first (the last 50; all of it is in ``mcp.log``)."""
    resources: list[McpResource] = []
    """The resources and resource templates it listed, as last listed (none for a server without any)."""


class McpServerList(Listing[McpServer]):
    pass


class RewindPoints(Listing[RewindPoint]):
    pass


class LoggedEvent(BaseModel):
    """One durable event as ``agent-tui log`` prints it; ``data`` depends on ``type``."""

    seq: int
    type: str
    created: int
    data: dict[str, Any]


class EventList(Listing[LoggedEvent]):
    pass


class ContextEntry(BaseModel):
    key: str
    value: Any


ContextEntries = dict[str, Any]
"""Context entries by key."""

ActiveSessions = dict[str, dict[str, Any]]
"""What each running session is doing, by session id."""


class StructuredAnswer(BaseModel):
    session_id: str
    seq: int
    """The log position of the accepted ``final_answer`` call; 0: none after ``after`` yet."""
    call_id: str | None = None
    value: Any = None


class Resumed(BaseModel):
    session_id: str
    started: bool
    """False: the session was already running here and the call joined it."""


class Interrupted(BaseModel):
    session_id: str
    was_running: bool


class ErrorBody(BaseModel):
    type: str
    message: str
    problems: list[str] | None = None
    """A 422's values that do not fit, one line each (left out otherwise)."""


class ErrorResponse(BaseModel):
    error: ErrorBody


__all__ = [
    "ActiveSessions",
    "AgentBody",
    "CompactBody",
    "ContextEntries",
    "ContextEntry",
    "CreateSession",
    "ErrorBody",
    "ErrorResponse",
    "EventList",
    "ForkBody",
    "HistoryQuery",
    "Interrupted",
    "ListQuery",
    "Listing",
    "LogQuery",
    "LoggedEvent",
    "MessageList",
    "MessagesQuery",
    "ModelBody",
    "PendingList",
    "PermissionList",
    "PermissionRecord",
    "PermissionReplyBody",
    "PreviewQuery",
    "PromptBody",
    "Question",
    "QuestionAnswer",
    "QuestionAnswerBody",
    "QuestionList",
    "Receipt",
    "RenameBody",
    "Resumed",
    "RewindBody",
    "RewindPoints",
    "FilesPreview",
    "RewindResult",
    "SessionList",
    "SessionRecord",
]
