"""Structured output in the request and in the log: the ``final_answer`` tool offered (forced when
it must be called), the turn that ends with an accepted answer, and that answer read back.

Everything about *whether the turn is over* is read from the durable tool-call rows, not from
process state, so a resume or a replay reaches the same conclusion as the run that wrote them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_tui.core.log.records import MessageRecord, ToolCallRecord
from agent_tui.core.request.prompts import FINAL_STEP_REMINDER
from agent_tui.llm import types as llm
from agent_tui.tools.final_answer import FINAL_ANSWER_TOOL, OutputSchema

FORCE_CHOICE = {"type": "function", "function": {"name": FINAL_ANSWER_TOOL}}
"""OpenAI's tool-choice shape; LiteLLM translates it for the other providers."""
FINAL_ANSWER_REMINDER = (
    f"This is the final step allowed for this turn: call {FINAL_ANSWER_TOOL} now with your answer,"
    " matching its schema; no other tool is available."
)
REPAIR_STEPS = 3
"""The steps a forced repair may take: the answer, and two corrections of what the schema refused
(not the agent's whole allowance: "one repair attempt" should cost a few requests, not fifty)."""
JSON_FINAL_REMINDER = (
    "This is the final step allowed for this turn: tools are unavailable. Reply with your final"
    " answer now, as JSON matching the response format."
)


def shape(
    request: llm.Request, output: OutputSchema | None, final_step: bool, native: bool = False, choice: bool = True
) -> llm.Request:
    """Offer ``final_answer`` beside the agent's tools; the final step of the allowance (which
    otherwise has no tools) and a forced repair must call it. ``native``: a model without function
    calling gets the provider's JSON mode instead (``response_format`` with the schema), and its
    final text is the answer (:func:`text_answer`). ``choice``: False for a model known not to take
    ``tool_choice`` (then only the prompt and the offered tools ask for the answer)."""
    if output is None:
        return request
    if native:
        schema = {"name": FINAL_ANSWER_TOOL, "schema": output.parameters()}
        update: dict[str, Any] = {
            "extra": {**request.extra, "response_format": {"type": "json_schema", "json_schema": schema}}
        }
        if final_step:
            update["messages"] = _reminded(request.messages, JSON_FINAL_REMINDER)
        return request.model_copy(update=update)
    spec = llm.ToolSpec(**output.spec())
    others = [tool for tool in request.tools if tool.name != FINAL_ANSWER_TOOL]
    if final_step:
        messages = _reminded(request.messages, FINAL_ANSWER_REMINDER)
        extra = {**request.extra, "tool_choice": FORCE_CHOICE} if choice else request.extra
        return request.model_copy(update={"tools": [spec], "extra": extra, "messages": messages})
    offered: dict[str, Any] = {"tools": [*others, spec]}
    if output.forced and choice:
        offered["extra"] = {**request.extra, "tool_choice": FORCE_CHOICE}
    return request.model_copy(update=offered)


def _reminded(messages: Sequence[llm.HistoryMessage], text: str) -> list[llm.HistoryMessage]:
    """The final-step reminder (it says to summarise without tools) replaced by ``text``."""
    return [llm.SystemReminder(text=text) if _is_final_reminder(message) else message for message in messages]


def _is_final_reminder(message: llm.HistoryMessage) -> bool:
    return isinstance(message, llm.SystemReminder) and message.text == FINAL_STEP_REMINDER


def answered(messages: Sequence[MessageRecord], tool_calls: Iterable[ToolCallRecord]) -> bool:
    """The newest model-visible turn is a completed step with an accepted ``final_answer``:
    the turn is over though the step called a tool."""
    for message in reversed(messages):
        if message.kind == "user":
            return False
        if message.kind == "assistant":
            if message.data.get("state") != "ended":
                return False
            return any(
                call.assistant_message_id == message.id and call.name == FINAL_ANSWER_TOOL and call.state == "success"
                for call in tool_calls
            )
    return False


@dataclass(frozen=True)
class FinalAnswer:
    """An accepted structured answer: the value, and the call and log position that gave it."""

    value: Any
    call_id: str | None
    """None: the model's final text in JSON mode."""
    seq: int


def final_answer(tool_calls: Iterable[ToolCallRecord], after: int = 0) -> FinalAnswer | None:
    """The newest accepted ``final_answer`` recorded after log position ``after``."""
    found = None
    for call in tool_calls:
        if call.name == FINAL_ANSWER_TOOL and call.state == "success" and call.seq > after:
            data = (call.output or {}).get("data") or {}
            if "value" in data and (found is None or call.seq > found.seq):
                found = FinalAnswer(value=data["value"], call_id=call.call_id, seq=call.seq)
    return found


def text_answer(messages: Sequence[MessageRecord], output: OutputSchema, after: int = 0) -> FinalAnswer | None:
    """JSON mode's answer: the newest assistant text after ``after``, if it is JSON (a Markdown code
    fence around it is allowed) that matches ``output``'s schema."""
    for message in reversed(messages):
        if message.seq <= after:
            return None
        if message.kind != "assistant":
            continue
        parts = message.data.get("parts", [])
        text = "".join(part.get("text") or "" for part in parts if part.get("type") == "text").strip()
        if not text:
            continue
        try:
            value = json.loads(_unfenced(text))
        except ValueError:
            return None
        settled = output.settle(value)
        if settled.output is None:
            return None
        return FinalAnswer(value=settled.output.data["value"], call_id=None, seq=message.seq)
    return None


def _unfenced(text: str) -> str:
    if text.startswith("```") and text.endswith("```"):
        return text[3:-3].removeprefix("json").strip()
    return text
