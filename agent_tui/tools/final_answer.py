"""The generated ``final_answer`` tool of a structured-output run (``run --output-schema``).

The model hands its final answer as this tool's arguments, so the provider's tool
calling (and its tool choice) shapes the answer; the arguments are checked here
against the caller's JSON Schema, and a refusal lists what is wrong so the model
can call again. A schema that does not describe an object is wrapped as the one
property ``answer``: tool arguments are always an object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.kinds import ErrorType
from agent_tui.vocab.tool_output import ToolOutput

FINAL_ANSWER_TOOL = "final_answer"
WRAPPED_KEY = "answer"
DESCRIPTION = (
    "Give your final answer as this tool's arguments, which must match its schema. Call it once,"
    " when the task is done: the turn ends as soon as an answer is accepted."
)
_MAX_ERRORS = 8


class InvalidSchema(ValueError):
    """The caller's schema is not a valid JSON Schema (one line saying why)."""


@dataclass(frozen=True)
class OutputSchema:
    """A session's required final answer: the schema, and whether the next steps must call the tool
    (``forced``: the repair after a run that ended without an answer)."""

    schema: dict[str, Any]
    forced: bool = False

    @property
    def wrapped(self) -> bool:
        """Tool arguments are objects: a schema of anything else is the property ``answer``."""
        return self.schema.get("type") != "object"

    def parameters(self) -> dict[str, Any]:
        if not self.wrapped:
            return self.schema
        return {"type": "object", "properties": {WRAPPED_KEY: self.schema}, "required": [WRAPPED_KEY]}

    def spec(self) -> dict[str, Any]:
        return {"name": FINAL_ANSWER_TOOL, "description": DESCRIPTION, "parameters": self.parameters()}

    def settle(self, arguments: Any) -> ToolOutcome:
        """Validate the model's arguments: the value (unwrapped) in ``data["value"]``, else every
        validation error the model needs to fix."""
        from jsonschema import Draft202012Validator, validators
        from referencing import Registry

        validator_class = validators.validator_for(self.schema, default=Draft202012Validator)
        validator = validator_class(self.parameters(), registry=Registry())  # no remote $ref is fetched
        try:
            problems = sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.path])
        except Exception as error:  # noqa: BLE001 - an unresolvable $ref: the caller's schema, not the model
            return ToolOutcome.failure(ErrorType.TOOL_EXECUTION, f"The output schema cannot be checked: {error}")
        if problems:
            lines = [f"{_where(error.absolute_path)}: {error.message:.300}" for error in problems[:_MAX_ERRORS]]
            more = len(problems) - _MAX_ERRORS
            tail = f"; and {more} more" if more > 0 else ""
            return ToolOutcome.failure(
                ErrorType.TOOL_INPUT,
                f"The answer does not match the schema: {'; '.join(lines)}{tail}. Call {FINAL_ANSWER_TOOL} again.",
            )
        value = arguments[WRAPPED_KEY] if self.wrapped else arguments
        return ToolOutcome(output=ToolOutput(text="Answer accepted.", data={"value": value}))


def checked_schema(schema: Any) -> dict[str, Any]:
    """``schema`` if it is a JSON Schema object (checked against its metaschema); raises InvalidSchema."""
    from jsonschema import Draft202012Validator, SchemaError, validators

    if not isinstance(schema, dict):
        raise InvalidSchema(f"a JSON Schema here is an object, not {type(schema).__name__}")
    if not isinstance(schema.get("$schema", ""), str):
        raise InvalidSchema("$schema: a dialect is named by a URI string")
    try:
        validators.validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as error:
        raise InvalidSchema(f"{_where(error.absolute_path)}: {error.message:.300}") from None
    return schema


def _where(path: Any) -> str:
    parts = [str(part) for part in path]
    return "/".join(parts) if parts else "(answer)"
