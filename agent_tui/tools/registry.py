"""Per-location tool registry: catalogue, input decoding, invocation, settlement.

Every failure a tool can have ends as an ``ErrorInfo`` the model can read;
only task cancellation escapes :meth:`ToolRegistry.invoke`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_tui.tools.errors import PermissionRejected, ToolError
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolOutcome, ToolResult
from agent_tui.tools.wildcard import wildcard_match
from agent_tui.vocab.kinds import Effect, ErrorType
from agent_tui.vocab.permission_rule import PermissionRule
from agent_tui.vocab.tool_output import ToolOutput


def denied_outright(action: str, rules: Sequence[PermissionRule]) -> bool:
    """True when the last rule about ``action`` that could allow anything is a ``* deny``.

    A ``{action, "*", deny}`` denies every resource unless a later rule for
    the action says otherwise.
    """
    hidden = False
    for rule in rules:
        if not wildcard_match(rule.action, action):
            continue
        if rule.effect is Effect.DENY and rule.pattern == "*":
            hidden = True
        elif rule.effect is not Effect.DENY:
            hidden = False
    return hidden


def describe_validation(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        key = ".".join(str(p) for p in item["loc"]) or "(input)"
        got = "" if item["type"] == "missing" else f" (got {item.get('input')!r:.60})"
        parts.append(f"{key}: {item['msg']}{got}")
    return "; ".join(parts)


class ToolRegistry:
    """The tools one location offers, in registration order."""

    def __init__(self, location: Path) -> None:
        self.location = Path(location)
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> Callable[[], None]:
        """Add a tool; returns the function that removes it again (closing its scope)."""
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._tools[tool.name] = tool

        def unregister() -> None:
            self._tools.pop(tool.name, None)

        return unregister

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def definitions(self, agent_rules: Sequence[PermissionRule] = ()) -> list[dict[str, Any]]:
        """Tool specs for the model, without tools the agent's rules deny outright."""
        return [t.spec() for t in self._tools.values() if not denied_outright(t.action, agent_rules)]

    async def invoke(self, name: str, raw_input: Any, scope: ToolScope) -> ToolOutcome:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return ToolOutcome.failure(ErrorType.TOOL_UNKNOWN, f"Unknown tool {name!r}. Available tools: {known}.")
        if not isinstance(raw_input, dict):
            return ToolOutcome.failure(
                ErrorType.TOOL_INPUT,
                f"Invalid input for {name}: expected a JSON object, got {type(raw_input).__name__}.",
            )
        try:
            params = tool.input_model.model_validate(raw_input)
        except ValidationError as error:
            return ToolOutcome.failure(ErrorType.TOOL_INPUT, f"Invalid input for {name}: {describe_validation(error)}")
        try:
            result = await tool.run(scope, params)
        except PermissionRejected as error:
            return ToolOutcome.failure(error.type, error.message, stop_run=error.stop_run)
        except ToolError as error:
            failed = ToolOutcome.failure(error.type, error.message)
            return replace(failed, result_meta=dict(error.result_meta)) if error.result_meta else failed
        except Exception as error:  # noqa: BLE001 - every tool failure settles as a typed error
            return ToolOutcome.failure(ErrorType.TOOL_EXECUTION, f"{name} failed: {type(error).__name__}: {error}")
        if not isinstance(result, ToolResult) or not isinstance(result.output, ToolOutput):
            return ToolOutcome.failure(ErrorType.TOOL_EXECUTION, f"{name} returned invalid output: {result!r:.200}")
        try:
            output = ToolOutput.model_validate(result.output.model_dump())
        except ValidationError as error:
            return ToolOutcome.failure(
                ErrorType.TOOL_EXECUTION, f"{name} returned invalid output: {describe_validation(error)}"
            )
        return ToolOutcome(output=output, result_meta=dict(result.result_meta))
