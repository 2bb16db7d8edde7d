"""How big the next request is, and how big it may be (DESIGN §8).

The estimate covers the complete request — system, history, tool definitions.
When a step since the last checkpoint reported its input tokens, that figure
is the base and only what came after it (that step's own output and tool
results, later messages, appended reminders) is estimated at ~4 characters
per token; otherwise the whole request is estimated that way.
"""

from __future__ import annotations

import json

from agent_tui.core.log.records import MessageRecord, ToolCallRecord
from agent_tui.core.request.builder import history_messages
from agent_tui.core.request.compaction_text import CHARS_PER_TOKEN, IMAGE_TOKENS, active_history
from agent_tui.core.request.pruning import STUB_PREFIX, PruneRule, prune
from agent_tui.llm import types as llm


def tokens_for(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN)


def reserve(output_allowance: int | None, buffer: int) -> int:
    """What a request must leave free: the larger of the output allowance and the buffer."""
    return max(output_allowance or 0, buffer)


def budget(context_window: int, output_allowance: int | None, buffer: int) -> int:
    """Context window minus the absolute reserve."""
    return context_window - reserve(output_allowance, buffer)


def estimate(
    request: llm.Request,
    history: list[MessageRecord],
    tool_calls: list[ToolCallRecord],
    rule: PruneRule | None = None,
) -> int:
    """Tokens of ``request``, which was built from ``history`` and pruned by ``rule``."""
    _, active = active_history(history)
    anchor = _last_reported(active)
    if anchor is None:
        return tokens_for(request_chars(request))
    reported = int(active[anchor].data["usage"]["input_tokens"])
    after = history_messages(active[anchor:], tool_calls)
    size = reported + tokens_for(sum(message_chars(m) for m in [*after, *_appended(request.messages, after)]))
    return size - _pruned_since(active, anchor, tool_calls, rule if _has_stubs(request) else None)


def _has_stubs(request: llm.Request) -> bool:
    """Whether pruning removed anything from ``request`` (a cheap test before lowering the history again)."""
    return any(
        part.result.text.startswith(STUB_PREFIX)
        for message in request.messages
        if isinstance(message, llm.AssistantTurn)
        for part in message.parts
        if isinstance(part, llm.ToolUse) and part.result is not None
    )


def _pruned_since(
    active: list[MessageRecord], anchor: int, tool_calls: list[ToolCallRecord], rule: PruneRule | None
) -> int:
    """Tokens pruning removes now that it did not remove from the anchor step's own request.

    The reported figure counts that request as it was pruned then; what came after is
    estimated in full. Pruning is a pure function of the history, so both are recomputed.
    """
    if rule is None:
        return 0
    now = prune(history_messages(active, tool_calls), rule).freed_tokens
    then = prune(history_messages(active[:anchor], tool_calls), rule).freed_tokens
    return max(0, now - then)


def request_chars(request: llm.Request) -> int:
    system = sum(len(text) for text in request.system)
    return system + tools_chars(request.tools) + sum(message_chars(m) for m in request.messages)


def tools_chars(tools: list[llm.ToolSpec]) -> int:
    """The tool definitions as the estimate counts them (their JSON)."""
    return len(json.dumps([t.model_dump() for t in tools], ensure_ascii=False)) if tools else 0


def message_chars(message: llm.HistoryMessage) -> int:
    images = _images(message)
    base64_chars = sum(len(image.data) for image in images)
    return len(message.model_dump_json()) - base64_chars + len(images) * IMAGE_TOKENS * CHARS_PER_TOKEN


def _images(message: llm.HistoryMessage) -> list[llm.RequestImage]:
    match message:
        case llm.UserTurn(parts=parts):
            return [part for part in parts if isinstance(part, llm.RequestImage)]
        case llm.AssistantTurn(parts=parts):
            return [
                image for part in parts if isinstance(part, llm.ToolUse) and part.result for image in part.result.images
            ]
    return []


def _appended(messages: list[llm.HistoryMessage], after: list[llm.HistoryMessage]) -> list[llm.HistoryMessage]:
    """What the runner added behind the history (the final-step reminder), found without lowering it all."""
    if after:
        last = _key(after[-1])
        for back in range(min(3, len(messages))):
            if _key(messages[len(messages) - 1 - back]) == last:
                return messages[len(messages) - back :]
    return []


def _key(message: llm.HistoryMessage) -> str:
    """A message without its tool call ids (the full lowering renames repeated ones)."""
    if isinstance(message, llm.AssistantTurn):
        parts = [p.model_copy(update={"call_id": ""}) if isinstance(p, llm.ToolUse) else p for p in message.parts]
        message = message.model_copy(update={"parts": parts})
    return message.model_dump_json()


def _last_reported(active: list[MessageRecord]) -> int | None:
    for index in range(len(active) - 1, -1, -1):
        message = active[index]
        usage = message.data.get("usage") if message.kind == "assistant" else None
        if usage and usage.get("input_tokens"):
            return index
    return None
