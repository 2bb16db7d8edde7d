"""The closed sets of names stored in the log and passed between layers.

No pydantic here: the TUI's first frame imports these (deliveries, permission
replies, error types) without paying for the event models.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorType(StrEnum):
    """``ErrorInfo.type``: provider failures as ``llm`` classifies them, then core and tool failures.

    The values are stored in the log; never change one.
    """

    RATE_LIMIT = "provider.rate-limit"
    INTERNAL = "provider.internal"
    TRANSPORT = "provider.transport"
    CONTEXT_OVERFLOW = "provider.context-overflow"
    CONTENT_FILTER = "provider.content-filter"
    AUTH = "provider.auth"
    INVALID_REQUEST = "provider.invalid-request"
    UNKNOWN = "provider.unknown"
    ABORTED = "aborted"
    TOOL_STALE = "tool.stale"
    TOOL_EXECUTION = "tool.execution"
    TOOL_INPUT = "tool.input"
    TOOL_UNKNOWN = "tool.unknown"
    PERMISSION_REJECTED = "permission.rejected"
    INSTRUCTIONS_UNAVAILABLE = "instructions.unavailable"
    STORE_WRITE = "store.write"  # the store refused a write the step needed (disk full, locked database)


RETRYABLE = frozenset({ErrorType.RATE_LIMIT, ErrorType.INTERNAL, ErrorType.TRANSPORT})
"""The transient failures: the only ones a step or a compaction retries."""

TOOL_INTERRUPTED = "Tool execution interrupted"
"""The message of a tool call that was cut off (interrupt, crash, unanswered ask)."""


class Delivery(StrEnum):
    STEER = "steer"
    QUEUE = "queue"


class InterruptReason(StrEnum):
    USER = "user"
    SHUTDOWN = "shutdown"
    SUPERSEDED = "superseded"  # another host took the session's lease over (core/run/cluster_lease.py)


class CompactionReason(StrEnum):
    AUTO = "auto"
    MANUAL = "manual"
    OVERFLOW = "overflow"


class PlanStatus(StrEnum):
    """Where one item of the live plan (the ``todo`` tool's checklist) stands."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    DONE = "done"


class Effect(StrEnum):
    """What a permission rule does when it matches."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class PermissionReply(StrEnum):
    ONCE = "once"
    ALWAYS = "always"
    REJECT = "reject"


class McpState(StrEnum):
    """Where one MCP server connection is: ``/mcp``, the status bar and ``GET /api/mcp`` show it."""

    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    STOPPED = "stopped"


class RewindMode(StrEnum):
    """What a rewind brings back: the conversation, the location's files, or both."""

    BOTH = "both"
    CONVERSATION = "conversation"
    FILES = "files"


class ApprovalMode(StrEnum):
    """How much the permission gate lets through without asking (``approval`` in the config).

    Deny rules and an agent's own rules win in every mode; see ``tools.permissions.approval_covers``."""

    ASK = "ask"
    """Ask for everything the rules do not allow."""
    AUTO_EDIT = "auto-edit"
    """Edits to files in the project (``apply_patch``) and reads run without asking."""
    AUTO = "auto"
    """Everything that stays inside the sandbox runs without asking; leaving it asks."""
    FULL_AUTO = "full-auto"
    """Nothing is asked."""


APPROVAL_CYCLE = (ApprovalMode.ASK, ApprovalMode.AUTO_EDIT, ApprovalMode.AUTO)
"""What the TUI's key steps through; ``full-auto`` only by ``--full-auto``, ``--approval`` or the config."""


def next_approval(mode: ApprovalMode) -> ApprovalMode:
    """The mode after ``mode`` in :data:`APPROVAL_CYCLE` (from ``full-auto``, back to ``ask``)."""
    if mode not in APPROVAL_CYCLE:
        return ApprovalMode.ASK
    return APPROVAL_CYCLE[(APPROVAL_CYCLE.index(mode) + 1) % len(APPROVAL_CYCLE)]
