"""Per-location tool registry: catalogue, input decoding, invocation, settlement.

Every failure a tool can have ends as an ``ErrorInfo`` the model can read;
only task cancellation escapes :meth:`ToolRegistry.invoke`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Sequence

from pydantic import BaseModel, ValidationError

from agent_tui.tools.context import ToolContext
from agent_tui.tools.errors import PermissionRejected, ToolError
from agent_tui.tools.wildcard import wildcard_match
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import Effect, ErrorType
from agent_tui.vocab.permission_rule import PermissionRule
from agent_tui.vocab.tool_output import ToolOutput


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: the model-visible output plus metadata for the log."""

    output: ToolOutput
    result_meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolOutcome:
    """A settled call: exactly one of ``output`` / ``error``.

    ``stop_run`` is set when the user rejected a permission without a message:
    the runner fails the tool and stops the run.
    """

    output: ToolOutput | None = None
    error: ErrorInfo | None = None
    result_meta: dict[str, Any] = field(default_factory=dict)
    stop_run: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    @staticmethod
    def failure(type_: str, message: str, *, stop_run: bool = False) -> "ToolOutcome":
        return ToolOutcome(error=ErrorInfo(type=str(type_), message=message), stop_run=stop_run)


Runner = Callable[[ToolContext, Any], Awaitable[ToolResult]]


@dataclass(frozen=True)
class Tool:
    """A registration: name, model-facing description, input model, handler.

    ``action`` is the permission action the tool needs (catalogue visibility).
    ``parameters`` is a JSON schema given as is (an MCP server's) in place of
    the input model's; the model then only checks that the input is an object.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    run: Runner
    action: str
    parameters: dict[str, Any] | None = None

    def spec(self) -> dict[str, Any]:
        parameters = self.parameters if self.parameters is not None else _schema(self.input_model)
        return {"name": self.name, "description": self.description, "parameters": parameters}


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """The input model's JSON schema, trimmed for the model: no titles, and an
    optional ``X | None = None`` field shown as plain ``X`` (None is still accepted)."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    properties = schema.get("properties", {})
    for name, prop in list(properties.items()):
        prop.pop("title", None)
        options = prop.get("anyOf")
        if options and len(options) == 2 and {"type": "null"} in options and prop.get("default", 0) is None:
            (kept,) = [o for o in options if o != {"type": "null"}]
            properties[name] = {**kept, **{k: v for k, v in prop.items() if k not in ("anyOf", "default")}}
    return schema


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
        return lambda: self._tools.pop(tool.name, None)  # type: ignore[func-returns-value]

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def definitions(self, agent_rules: Sequence[PermissionRule] = ()) -> list[dict[str, Any]]:
        """Tool specs for the model, without tools the agent's rules deny outright."""
        return [t.spec() for t in self._tools.values() if not denied_outright(t.action, agent_rules)]

    async def invoke(self, name: str, raw_input: Any, ctx: ToolContext) -> ToolOutcome:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return ToolOutcome.failure(ErrorType.TOOL_UNKNOWN, f"Unknown tool {name!r}. Available tools: {known}.")
        if not isinstance(raw_input, dict):
            return ToolOutcome.failure(
                ErrorType.TOOL_INPUT, f"Invalid input for {name}: expected a JSON object, got {type(raw_input).__name__}."
            )
        try:
            params = tool.input_model.model_validate(raw_input)
        except ValidationError as error:
            return ToolOutcome.failure(ErrorType.TOOL_INPUT, f"Invalid input for {name}: {describe_validation(error)}")
        try:
            result = await tool.run(ctx, params)
        except PermissionRejected as error:
            return ToolOutcome.failure(error.type, error.message, stop_run=error.stop_run)
        except ToolError as error:
            return ToolOutcome.failure(error.type, error.message)
        except Exception as error:  # noqa: BLE001 - every tool failure settles as a typed error
            return ToolOutcome.failure(ErrorType.TOOL_EXECUTION, f"{name} failed: {type(error).__name__}: {error}")
        if not isinstance(result, ToolResult) or not isinstance(result.output, ToolOutput):
            return ToolOutcome.failure(ErrorType.TOOL_EXECUTION, f"{name} returned invalid output: {result!r:.200}")
        try:
            output = ToolOutput.model_validate(result.output.model_dump())
        except ValidationError as error:
            return ToolOutcome.failure(ErrorType.TOOL_EXECUTION, f"{name} returned invalid output: {describe_validation(error)}")
        return ToolOutcome(output=output, result_meta=dict(result.result_meta))


def default_registry(location: Path) -> ToolRegistry:
    """The built-in tools: read, bash, apply_patch."""
    from agent_tui.tools.apply_patch.tool import APPLY_PATCH
    from agent_tui.tools.bash import BASH
    from agent_tui.tools.read import READ

    registry = ToolRegistry(location)
    for tool in (READ, BASH, APPLY_PATCH):
        registry.register(tool)
    return registry
