"""What a tool is: its registration, its return value and its settled outcome.

The tools (``read``, ``bash``, ``apply_patch``, MCP tools) and the registry
both import from here; nothing here imports a tool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from agent_tui.tools.scope import ToolScope
from agent_tui.vocab.error_info import ErrorInfo
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
    def failure(type_: str, message: str, *, stop_run: bool = False) -> ToolOutcome:
        return ToolOutcome(error=ErrorInfo(type=str(type_), message=message), stop_run=stop_run)


ToolHandler = Callable[[ToolScope, Any], Awaitable[ToolResult]]


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
    run: ToolHandler
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
