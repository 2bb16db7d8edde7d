"""What crosses the permission boundary: requests, decisions and the injected ports.

The tools layer never talks to the store or the UI. It asks through an
injected :data:`Asker` (the core wires it to durable ``permission.asked`` /
``permission.replied`` events) and reads saved approvals through an
:class:`ApprovalStore`. Headless runs use :func:`policy_asker`.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.vocab.kinds import PermissionReply


class PermissionRequest(BaseModel):
    """One ask: an action on some resources, with the patterns "always" would save."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(default_factory=lambda: f"per_{uuid.uuid4().hex}")
    session_id: str = ""
    assistant_message_id: str | None = None
    call_id: str | None = None
    action: str
    resources: list[str]
    save_patterns: list[str] = Field(default_factory=list)
    detail: dict[str, Any] = Field(default_factory=dict)
    """``{"command": ...}`` for bash, ``{"diff": ...}`` for apply_patch, ``{"path": ...}``."""


class PermissionDecision(BaseModel):
    model_config = ConfigDict(frozen=True)

    reply: PermissionReply
    message: str | None = None


Asker = Callable[[PermissionRequest], Awaitable[PermissionDecision]]


class ApprovalStore(Protocol):
    """Saved "always" approvals of a project (the ``permission_approval`` table)."""

    async def approved(self, project_root: str) -> list[tuple[str, str]]: ...


class NoApprovals:
    """An approval store with nothing saved (tests, one-off runs)."""

    async def approved(self, project_root: str) -> list[tuple[str, str]]:
        return []


def policy_asker(policy: str) -> Asker:
    """The headless ``--permission allow|deny|stop`` answer: immediate, never hangs. ``deny`` tells
    the model and the run goes on; ``stop`` is a plain reject, which ends the run (``permission.rejected``)."""
    if policy not in ("allow", "deny", "stop"):
        raise ValueError(f"--permission must be 'allow', 'deny' or 'stop', not {policy!r}")

    async def ask(request: PermissionRequest) -> PermissionDecision:
        match policy:
            case "allow":
                return PermissionDecision(reply=PermissionReply.ONCE)
            case "stop":
                return PermissionDecision(reply=PermissionReply.REJECT)
        return PermissionDecision(
            reply=PermissionReply.REJECT,
            message=f"{request.action} is not allowed in this headless run (--permission deny).",
        )

    return ask


class PermissionChecker(Protocol):
    """What a tool calls before acting; :class:`~.permissions.PermissionGate` implements it."""

    async def check(
        self,
        action: str,
        resources: list[str],
        *,
        detail: dict[str, Any] | None = None,
        save_patterns: list[str] | None = None,
        origin: CallOrigin | None = None,
    ) -> None: ...


class CallOrigin(BaseModel):
    """Which tool call is asking, so the ask can be attributed in the log."""

    model_config = ConfigDict(frozen=True)

    session_id: str = ""
    assistant_message_id: str | None = None
    call_id: str | None = None
