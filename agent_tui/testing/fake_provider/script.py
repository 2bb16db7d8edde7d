"""The fake provider's script: one :class:`Turn` per request, in order.

A turn describes what the model "says" independently of the wire format;
``openai_wire`` and ``anthropic_wire`` render the same turn as each API would
stream it. The JSON file format is documented in ``docs/fake-provider.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScriptToolCall(_Model):
    """One tool call; ``arguments`` is sent verbatim when it is a string (so it may be invalid JSON)."""

    id: str
    name: str
    arguments: str | dict[str, Any] = ""
    chunks: int = Field(default=1, ge=1)
    index: int | None = None  # OpenAI wire only: force a stream index (e.g. reuse 0)

    def argument_text(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


class ScriptUsage(_Model):
    input: int = 10
    output: int = 5
    reasoning: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float | None = None  # a gateway-reported cost (OpenRouter / LiteLLM proxy ``usage.cost``); OpenAI wire only


class ScriptError(_Model):
    """An HTTP error answered instead of a stream."""

    status: int = 500
    kind: (
        Literal["rate_limit", "overloaded", "internal", "context_overflow", "auth", "invalid_request", "content_filter"]
        | None
    ) = None
    message: str | None = None
    retry_after: float | None = None  # seconds, sent as the ``retry-after`` header
    retry_after_ms: int | None = None


class ScriptFailure(_Model):
    """Break the stream after ``after`` content chunks: an error event or a dropped connection."""

    after: int = Field(default=0, ge=0)
    mode: Literal["error_event", "drop"] = "error_event"
    kind: Literal["overloaded", "rate_limit", "internal"] = "overloaded"
    message: str | None = None


class Turn(_Model):
    text: str | None = None
    chunks: int = Field(default=1, ge=1)
    reasoning: str | None = None
    reasoning_chunks: int = Field(default=1, ge=1)
    signature: str | None = None  # Anthropic thinking signature; generated when omitted
    redacted_thinking: str | None = None  # Anthropic redacted_thinking data
    tool_calls: list[ScriptToolCall] = Field(default_factory=list)
    finish: Literal["stop", "tool_calls", "length", "content_filter"] | None = None
    usage: ScriptUsage = Field(default_factory=ScriptUsage)
    error: ScriptError | None = None
    fail: ScriptFailure | None = None
    delay_ms: float = Field(default=0, ge=0)
    hold: bool = False  # wait for FakeProvider.release() before streaming
    validate_request: bool = Field(default=True, alias="validate")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @field_validator("tool_calls")
    @classmethod
    def _unique_ids(cls, calls: list[ScriptToolCall]) -> list[ScriptToolCall]:
        ids = [c.id for c in calls]
        if len(ids) != len(set(ids)):
            raise ValueError("tool call ids must be unique within a turn")
        return calls

    @model_validator(mode="after")
    def _has_content(self) -> Turn:
        if (
            self.error is None
            and self.text is None
            and self.reasoning is None
            and not self.tool_calls
            and self.fail is None
        ):
            self.text = ""
        return self

    def finish_reason(self) -> str:
        if self.finish is not None:
            return self.finish
        return "tool_calls" if self.tool_calls else "stop"


class Script(_Model):
    turns: list[Turn] = Field(default_factory=list)


def split(text: str, parts: int) -> list[str]:
    """``text`` in ``parts`` pieces (fewer if shorter); never an empty list."""
    if not text:
        return [""]
    parts = max(1, min(parts, len(text)))
    size, extra = divmod(len(text), parts)
    pieces, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def load_script(path: Path) -> Script:
    """A script file: ``{"turns": [...]}`` or a bare list of turns."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        data = {"turns": data}
    return Script.model_validate(data)
