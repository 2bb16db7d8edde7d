"""Non-streaming answers (``"stream": false``), for callers that want one JSON body."""

from __future__ import annotations

import time
from typing import Any

from agent_tui.testing.fake_provider import anthropic_wire
from agent_tui.testing.fake_provider.script import Turn


def render(turn: Turn, model: str, wire: str) -> dict[str, Any]:
    u = turn.usage
    if wire == "openai":
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.reasoning:
            message["reasoning_content"] = turn.reasoning
        if turn.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.argument_text()}}
                for c in turn.tool_calls
            ]
        return {
            "id": f"chatcmpl-fake{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": turn.finish_reason()}],
            "usage": {
                "prompt_tokens": u.input + u.cache_read,
                "completion_tokens": u.output,
                "total_tokens": u.input + u.cache_read + u.output,
                "prompt_tokens_details": {"cached_tokens": u.cache_read},
                "completion_tokens_details": {"reasoning_tokens": u.reasoning},
            },
        }
    content: list[dict[str, Any]] = []
    if turn.reasoning:
        content.append(
            {
                "type": "thinking",
                "thinking": turn.reasoning,
                "signature": turn.signature or anthropic_wire.signature_for(turn.reasoning),
            }
        )
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for c in turn.tool_calls:
        content.append(
            {
                "type": "tool_use",
                "id": c.id,
                "name": c.name,
                "input": c.arguments if isinstance(c.arguments, dict) else {},
            }
        )
    stop = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "content_filter": "refusal"}
    return {
        "id": f"msg_fake{time.monotonic_ns()}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop[turn.finish_reason()],
        "stop_sequence": None,
        "usage": {
            "input_tokens": u.input,
            "output_tokens": u.output,
            "cache_creation_input_tokens": u.cache_write,
            "cache_read_input_tokens": u.cache_read,
        },
    }
