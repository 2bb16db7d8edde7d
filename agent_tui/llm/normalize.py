"""LiteLLM stream chunks -> normalised :data:`LLMEvent` s.

Pure and synchronous so it can be tested chunk by chunk and stays cheap per
chunk. Rules (DESIGN §6): one open text/reasoning fragment at a time; tool
calls are reassembled by index and a new id on a used index starts a new
call; a call is complete when a later call starts or the choice finishes;
empty arguments mean ``{}``; arguments that are not a JSON object become
``input_error`` for the model to see; usage is read from the final chunk
whose ``choices`` is empty.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.llm.pricing import reported
from agent_tui.llm.types import (
    Finish,
    FinishReason,
    LLMEvent,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
    ToolInputDelta,
    ToolInputStart,
)
from agent_tui.vocab.usage import CostSource, Usage

_FINISH = {
    "stop": FinishReason.STOP,
    "end_turn": FinishReason.STOP,
    "tool_calls": FinishReason.TOOL_CALLS,
    "function_call": FinishReason.TOOL_CALLS,
    "length": FinishReason.LENGTH,
    "content_filter": FinishReason.CONTENT_FILTER,
}


class _Call:
    __slots__ = ("index", "call_id", "name", "arguments", "done")

    def __init__(self, index: int, call_id: str, name: str) -> None:
        self.index, self.call_id, self.name = index, call_id, name
        self.arguments: list[str] = []
        self.done = False


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """``({}, None)`` for empty input; ``({}, message)`` when it is not a JSON object."""
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        return {}, f"Invalid JSON in tool arguments: {error.msg} at position {error.pos}. Arguments were: {raw[:200]}"
    if not isinstance(value, dict):
        return {}, f"Tool arguments must be a JSON object, got {type(value).__name__}: {raw[:200]}"
    return value, None


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def read_usage(usage: Any) -> Usage:
    """LiteLLM's OpenAI-shaped usage -> ours. ``input_tokens`` is the whole prompt (cache included)."""
    prompt_details = _field(usage, "prompt_tokens_details")
    completion_details = _field(usage, "completion_tokens_details")
    cache_read = _int(_field(usage, "cache_read_input_tokens")) or _int(_field(prompt_details, "cached_tokens"))
    cache_write = _int(_field(usage, "cache_creation_input_tokens")) or _int(
        _field(prompt_details, "cache_creation_tokens")
    )
    return Usage(
        input_tokens=_int(_field(usage, "prompt_tokens")),
        output_tokens=_int(_field(usage, "completion_tokens")),
        reasoning_tokens=_int(_field(completion_details, "reasoning_tokens")),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
    )


class Normalizer:
    """Feed chunks with :meth:`feed`, then :meth:`finish`; both return events to yield."""

    def __init__(self) -> None:
        self.model: str | None = None  # as the response names it
        self._open: str | None = None  # "text" | "reasoning"
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._thinking: list[dict[str, Any]] = []
        self._calls: dict[int, _Call] = {}
        self._order: list[_Call] = []
        self._finish: str | None = None
        self.usage: Usage | None = None
        self.reported_cost: float | None = None  # ``usage.cost``: what OpenRouter and LiteLLM proxies bill
        self.emitted = False  # any content event yielded (for output_started)
        self.called = False

    # ------------------------------------------------------------------ fragments

    def _close(self, out: list[LLMEvent]) -> None:
        if self._open == "text":
            out.append(TextEnd(text="".join(self._text)))
            self._text = []
        elif self._open == "reasoning":
            meta = {"thinking_blocks": self._thinking} if self._thinking else {}
            out.append(ReasoningEnd(text="".join(self._reasoning), provider_meta=meta))
            self._reasoning, self._thinking = [], []
        self._open = None

    def _open_kind(self, kind: str, out: list[LLMEvent]) -> None:
        if self._open != kind:
            self._close(out)
            out.append(TextStart() if kind == "text" else ReasoningStart())
            self._open = kind
            self.emitted = True

    def _thinking_block(self, block: Any) -> None:
        kind = _field(block, "type") or "thinking"
        if kind == "redacted_thinking":
            self._thinking.append({"type": "redacted_thinking", "data": _field(block, "data") or ""})
            return
        current = self._thinking[-1] if self._thinking and self._thinking[-1]["type"] == "thinking" else None
        if current is None or current.get("signature"):
            current = {"type": "thinking", "thinking": "", "signature": ""}
            self._thinking.append(current)
        current["thinking"] += _field(block, "thinking") or ""
        signature = _field(block, "signature")
        if signature:
            current["signature"] = signature

    # ------------------------------------------------------------------ tool calls

    def _complete(self, call: _Call, out: list[LLMEvent]) -> None:
        if call.done:
            return
        call.done = True
        raw = "".join(call.arguments)
        value, error = parse_arguments(raw)
        out.append(ToolCall(call_id=call.call_id, name=call.name, input=value, input_error=error, raw_arguments=raw))
        self.called = True

    def _tool_delta(self, position: int, delta: Any, out: list[LLMEvent]) -> None:
        index = _field(delta, "index")
        index = position if not isinstance(index, int) else index
        call_id = _field(delta, "id")
        function = _field(delta, "function")
        name = _field(function, "name") or ""
        arguments = _field(function, "arguments") or ""
        call = self._calls.get(index)
        if call is None or (call_id and call_id != call.call_id):
            self._close(out)
            for earlier in self._order:
                self._complete(earlier, out)
            call = _Call(index, call_id or f"call_{len(self._order)}", name)
            self._calls[index] = call
            self._order.append(call)
            out.append(ToolInputStart(index=index, call_id=call.call_id, name=name))
            self.emitted = True
        elif name and not call.name:
            call.name = name
        if arguments and not call.done:
            call.arguments.append(arguments)
            out.append(ToolInputDelta(index=index, call_id=call.call_id, delta=arguments))

    # ------------------------------------------------------------------ chunks

    def feed(self, chunk: Any) -> list[LLMEvent]:
        out: list[LLMEvent] = []
        model = getattr(chunk, "model", None)
        if isinstance(model, str) and model:
            self.model = model
        usage = getattr(chunk, "usage", None)
        if usage is not None and (_field(usage, "prompt_tokens") or _field(usage, "completion_tokens")):
            self.usage = read_usage(usage)
            self.reported_cost = reported(_field(usage, "cost"))
        choices = getattr(chunk, "choices", None)
        if not choices:
            return out
        choice = choices[0]
        delta = getattr(choice, "delta", None)
        if delta is not None:
            reasoning = getattr(delta, "reasoning_content", None)
            blocks = getattr(delta, "thinking_blocks", None)
            if reasoning or blocks:
                self._open_kind("reasoning", out)
                if reasoning:
                    self._reasoning.append(reasoning)
                    out.append(ReasoningDelta(text=reasoning))
                for block in blocks or ():
                    self._thinking_block(block)
            content = getattr(delta, "content", None)
            if content:
                self._open_kind("text", out)
                self._text.append(content)
                out.append(TextDelta(text=content))
            tool_calls = getattr(delta, "tool_calls", None)
            if tool_calls:
                for position, tool_delta in enumerate(tool_calls):
                    self._tool_delta(position, tool_delta, out)
        finish = getattr(choice, "finish_reason", None)
        if finish:
            self._finish = finish
            self._close(out)
            for call in self._order:
                self._complete(call, out)
        return out

    def finish(self, cost: float | None = None, cost_source: CostSource | None = None) -> list[LLMEvent]:
        out: list[LLMEvent] = []
        self._close(out)
        for call in self._order:
            self._complete(call, out)
        reason = _FINISH.get(self._finish or "", FinishReason.OTHER)
        if self.called and reason in (FinishReason.STOP, FinishReason.OTHER):
            reason = FinishReason.TOOL_CALLS
        usage = self.usage or Usage()
        out.append(Finish(reason=reason, usage=usage, cost=cost, cost_source=cost_source, model=self.model))
        return out
