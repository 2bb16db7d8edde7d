"""Typed failures a tool raises; the registry turns them into ``ErrorInfo``."""

from __future__ import annotations

from typing import Any

from agent_tui.vocab.kinds import ErrorType

PERMISSION_DENIED = "permission.denied"
"""A configured rule denies the action (the run continues; the model is told)."""


class ToolError(Exception):
    """A failure the model should read: one clear line, with its error type."""

    def __init__(
        self, message: str, type: str = ErrorType.TOOL_EXECUTION, result_meta: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.type = str(type)
        self.result_meta: dict[str, Any] = result_meta or {}
        """Kept with the failure in the log (a subagent's session id), as a result's ``result_meta`` is."""


class PermissionRejected(ToolError):
    """The user (or the headless policy) said no.

    ``stop_run`` is true for a plain reject: the tool fails with
    ``permission.rejected`` and the runner stops the run. A reject that
    carries a message only fails the tool: the message goes to the model and
    the run continues.
    """

    def __init__(self, message: str | None = None, *, action: str = "", detail: str = "") -> None:
        self.user_message = message
        self.stop_run = message is None
        if message is None:
            text = f"The user rejected permission for {action} {detail}".rstrip() + "."
        else:
            text = f"The user rejected permission for {action} {detail}".rstrip() + f" and said: {message}"
        super().__init__(text, ErrorType.PERMISSION_REJECTED)


class PermissionDenied(ToolError):
    """A rule with effect ``deny`` matched; final, never asked about."""

    def __init__(self, action: str, resource: str, pattern: str) -> None:
        super().__init__(
            f"Permission denied: {action} {resource!r} is denied by the rule "
            f"{{action = {action!r}, pattern = {pattern!r}, effect = 'deny'}}.",
            PERMISSION_DENIED,
        )
        self.action = action
        self.resource = resource


class AgentDenied(PermissionDenied):
    """The selected agent's own rules deny the action (the plan agent's edits): nothing lifts it."""

    def __init__(self, agent: str, action: str, resource: str, pattern: str) -> None:
        super().__init__(action, resource, pattern)
        self.agent = agent
        self.message = (
            f"Permission denied: the {agent} agent may not {action} {resource!r}; its rule "
            f"{{action = {action!r}, pattern = {pattern!r}, effect = 'deny'}} denies it, whatever other "
            f"rules or answers say. Only the user changes this: by selecting another agent, or with a rule "
            f"in [agents.{agent}]."
        )
        self.args = (self.message,)
