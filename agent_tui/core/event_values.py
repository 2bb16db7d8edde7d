"""Enumerations the events carry, importable without pydantic.

The TUI's first frame needs a few of these (deliveries, permission replies)
but not the event models, whose module imports pydantic (~60 ms).
``agent_tui.core.events`` re-exports every name here.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorType(StrEnum):
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
    STEP_LIMIT = "step.limit"
    INSTRUCTIONS_UNAVAILABLE = "instructions.unavailable"


TOOL_INTERRUPTED = "Tool execution interrupted"


class Delivery(StrEnum):
    STEER = "steer"
    QUEUE = "queue"


class InterruptReason(StrEnum):
    USER = "user"
    SHUTDOWN = "shutdown"
    SUPERSEDED = "superseded"


class CompactionReason(StrEnum):
    AUTO = "auto"
    MANUAL = "manual"
    OVERFLOW = "overflow"


class PermissionReply(StrEnum):
    ONCE = "once"
    ALWAYS = "always"
    REJECT = "reject"
