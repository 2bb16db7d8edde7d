"""The adapter's own boundary types: what a request is made of, what a stream yields.

``llm`` sits below ``core``, so it cannot use the core event schema; the runner
converts stored projections into :class:`Request` and the :data:`LLMEvent`
stream back into durable events.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.vocab.usage import CostSource, Price, Usage


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------
# Request side


class RequestText(_Model):
    """Prompt parts as a provider is sent them; the log's durable ``TextPart``, ``FilePart`` and
    ``ImagePart`` (``core.log.events``) are translated into these by the request builder."""

    type: Literal["text"] = "text"
    text: str


class RequestFile(_Model):
    """A file the user attached; ``text`` is its content when the runner read it."""

    type: Literal["file"] = "file"
    path: str
    mime: str = "text/plain"
    text: str | None = None


class RequestImage(_Model):
    """An image as base64 ``data`` (no ``data:`` prefix)."""

    type: Literal["image"] = "image"
    mime: str
    data: str
    path: str | None = None


UserPart = Annotated[RequestText | RequestFile | RequestImage, Field(discriminator="type")]


class UserTurn(_Model):
    role: Literal["user"] = "user"
    parts: list[UserPart]


class TextBlock(_Model):
    type: Literal["text"] = "text"
    text: str


class ReasoningBlock(_Model):
    """Reasoning text; ``provider_meta`` holds native blocks (``thinking_blocks``)."""

    type: Literal["reasoning"] = "reasoning"
    text: str
    provider_meta: dict[str, Any] = Field(default_factory=dict)


class ToolUseResult(_Model):
    ok: bool
    text: str
    images: list[RequestImage] = Field(default_factory=list)


class ToolUse(_Model):
    type: Literal["tool_use"] = "tool_use"
    call_id: str
    name: str
    input: dict[str, Any]
    result: ToolUseResult | None = None


AssistantPart = Annotated[TextBlock | ReasoningBlock | ToolUse, Field(discriminator="type")]


class AssistantTurn(_Model):
    role: Literal["assistant"] = "assistant"
    model: str
    failed: bool = False
    parts: list[AssistantPart]


class SystemReminder(_Model):
    """An instruction update or the compaction checkpoint, lowered at its place."""

    role: Literal["reminder"] = "reminder"
    text: str


HistoryMessage = Annotated[UserTurn | AssistantTurn | SystemReminder, Field(discriminator="role")]


class ToolSpec(_Model):
    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Request(_Model):
    """One model call. ``system`` is the agent prompt then the instruction baseline."""

    model: str
    system: list[str] = Field(default_factory=list)
    messages: list[HistoryMessage] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    api_base: str | None = None
    api_key: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    """The agent's sampling temperature; None: the provider's default."""
    prompt_cache: bool = True
    supports_vision: bool = False
    """The model takes images; otherwise every image in the history is sent as a placeholder line,
    since the log keeps images whatever model wrote them and the model may change between steps."""
    price: Price | None = None
    """The model's configured price (``[models."name"]``): overrides LiteLLM's price map."""
    extra: dict[str, Any] = Field(default_factory=dict)


# --------------------------------------------------------------------------
# Stream side


class _Event(_Model):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextStart(_Event):
    kind: Literal["text.start"] = "text.start"


class TextDelta(_Event):
    kind: Literal["text.delta"] = "text.delta"
    text: str


class TextEnd(_Event):
    kind: Literal["text.end"] = "text.end"
    text: str


class ReasoningStart(_Event):
    kind: Literal["reasoning.start"] = "reasoning.start"


class ReasoningDelta(_Event):
    kind: Literal["reasoning.delta"] = "reasoning.delta"
    text: str


class ReasoningEnd(_Event):
    """``provider_meta`` is ``{"thinking_blocks": [...]}`` when the provider signs reasoning."""

    kind: Literal["reasoning.end"] = "reasoning.end"
    text: str
    provider_meta: dict[str, Any] = Field(default_factory=dict)


class ToolInputStart(_Event):
    kind: Literal["tool_input.start"] = "tool_input.start"
    index: int
    call_id: str
    name: str


class ToolInputDelta(_Event):
    kind: Literal["tool_input.delta"] = "tool_input.delta"
    index: int
    call_id: str
    delta: str


class ToolCall(_Event):
    """A complete call. ``input_error`` set means the arguments were not a JSON object."""

    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    input: dict[str, Any]
    input_error: str | None = None
    raw_arguments: str = ""


class FinishReason(StrEnum):
    STOP = "stop"
    TOOL_CALLS = "tool_calls"
    LENGTH = "length"
    CONTENT_FILTER = "content_filter"
    OTHER = "other"


class Finish(_Event):
    kind: Literal["finish"] = "finish"
    reason: FinishReason
    usage: Usage = Field(default_factory=Usage)
    cost: float | None = None
    cost_source: CostSource | None = None
    model: str | None = None
    """The model the response names (a gateway may answer with another than the one asked for)."""


LLMEvent = (
    TextStart
    | TextDelta
    | TextEnd
    | ReasoningStart
    | ReasoningDelta
    | ReasoningEnd
    | ToolInputStart
    | ToolInputDelta
    | ToolCall
    | Finish
)


class ModelInfo(_Model):
    """What we know of a model; ``None`` window means automatic compaction is off."""

    model: str
    context_window: int | None = None
    max_output_tokens: int | None = None
    supports_vision: bool = False
    supports_tools: bool | None = None
    """Function calling, as LiteLLM's model map says; None: the map does not say."""
    supports_tool_choice: bool | None = None
    """Forcing a tool (``tool_choice``), as the map says; None: it does not say."""
    warning: str | None = None
