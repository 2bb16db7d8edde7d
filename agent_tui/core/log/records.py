"""Read models: what the store returns from its projections.

These are the shapes the runner, the TUI and the server read; they are built
from projection rows, never written directly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from agent_tui.core.log.session_row import SessionFields
from agent_tui.vocab.plan import PlanItem, plan_open

MessageKind = Literal["user", "assistant", "system", "compaction", "synthetic", "shell"]
ToolState = Literal["running", "success", "failed"]
InputKind = Literal["prompt", "compaction", "shell"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class SessionRecord(SessionFields, _Record):
    """A session as the facade returns it; its fields are ``session_row.SessionFields``."""


class SessionSummary(SessionRecord):
    """One picker / ``sessions list`` row (same fields as the record today)."""


class MessageRecord(_Record):
    id: str
    session_id: str
    seq: int
    kind: MessageKind
    data: dict[str, Any]
    created: int
    updated: int


class ToolCallRecord(_Record):
    session_id: str
    assistant_message_id: str
    call_id: str
    seq: int
    name: str
    input: dict[str, Any]
    state: ToolState
    output: dict[str, Any] | None
    error: dict[str, Any] | None
    call_meta: dict[str, Any]
    result_meta: dict[str, Any] | None
    hosted: bool


class InboxRecord(_Record):
    """A durable inbox row: an admitted prompt, a manual compaction barrier or a ``!`` command."""

    id: str
    session_id: str
    kind: InputKind
    delivery: str | None
    prompt: list[dict[str, Any]] | None
    fingerprint: str
    admitted_seq: int
    promoted_seq: int | None
    settled_seq: int | None
    withdrawn: bool
    queue_rank: int | None = None
    """Set by a reorder: queued inputs are promoted by ``queue_rank``, else ``admitted_seq``."""
    created: int


class CheckpointRecord(_Record):
    session_id: str
    baseline: str
    baseline_seq: int
    applied: dict[str, Any]


class PlanRecord(_Record):
    """A session's live plan: the newest visible ``todo`` call's items (none: ``seq`` 0, no items)."""

    session_id: str
    seq: int = 0
    """The seq of the ``tool.success`` that wrote it."""
    call_id: str | None = None
    items: list[PlanItem] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def open(self) -> bool:
        """Whether work is open (some item not done): what the TUI pins above the prompt."""
        return plan_open(self.items)


class ApprovalRecord(_Record):
    project_root: str
    action: str
    pattern: str
    created: int


class PermissionRecord(_Record):
    """A ``permission.asked`` and its reply, if any."""

    request_id: str
    session_id: str
    seq: int
    assistant_message_id: str | None
    call_id: str | None
    action: str
    resources: list[str]
    save: list[str]
    detail: dict[str, Any] = Field(default_factory=dict)
    reply: str | None
    message: str | None
    replied_seq: int | None
    created: int
