"""Anthropic messages as the real API streams it (``POST /v1/messages``)."""

from __future__ import annotations

import hashlib
import time
from typing import Any

from agent_tui.testing.fake_provider.frames import HttpError, Rendered, sse
from agent_tui.testing.fake_provider.script import ScriptError, ScriptFailure, Turn, split

_ERRORS = {
    "rate_limit": ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."),
    "overloaded": ("overloaded_error", "Overloaded"),
    "internal": ("api_error", "Internal server error"),
    "auth": ("authentication_error", "invalid x-api-key"),
    "invalid_request": ("invalid_request_error", "Invalid request."),
    "content_filter": ("invalid_request_error", "Output blocked by content filtering policy"),
    "context_overflow": ("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
}
_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "content_filter": "refusal"}


def error_body(message: str, type_: str = "invalid_request_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}}


def default_kind(status: int) -> str:
    return {429: "rate_limit", 401: "auth", 403: "auth", 400: "invalid_request", 529: "overloaded"}.get(
        status, "internal"
    )


def http_error(error: ScriptError) -> HttpError:
    type_, message = _ERRORS[error.kind or default_kind(error.status)]
    headers = {}
    if error.retry_after is not None:
        headers["retry-after"] = f"{error.retry_after:g}"
    if error.retry_after_ms is not None:
        headers["retry-after-ms"] = str(error.retry_after_ms)
    return HttpError(error.status, error_body(error.message or message, type_), headers)


def signature_for(thinking: str) -> str:
    """Deterministic stand-in for Anthropic's opaque signature, so tests can check round-trips."""
    return "sig-" + hashlib.sha256(thinking.encode()).hexdigest()[:24]


def render(turn: Turn, model: str) -> Rendered:
    u = turn.usage
    out = Rendered(
        prelude=[
            sse(
                {
                    "type": "message_start",
                    "message": {
                        "id": f"msg_fake{time.monotonic_ns()}",
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": u.input,
                            "output_tokens": 1,
                            "cache_creation_input_tokens": u.cache_write,
                            "cache_read_input_tokens": u.cache_read,
                        },
                    },
                },
                "message_start",
            ),
            sse({"type": "ping"}, "ping"),
        ]
    )
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        out.content.append(
            sse({"type": "content_block_start", "index": index, "content_block": start}, "content_block_start")
        )
        for delta in deltas:
            out.content.append(
                sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
            )
        out.content.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1

    if turn.reasoning:
        deltas = [{"type": "thinking_delta", "thinking": p} for p in split(turn.reasoning, turn.reasoning_chunks)]
        deltas.append({"type": "signature_delta", "signature": turn.signature or signature_for(turn.reasoning)})
        block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    if turn.redacted_thinking:
        block({"type": "redacted_thinking", "data": turn.redacted_thinking}, [])
    if turn.text:
        block({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in split(turn.text, turn.chunks)])
    for call in turn.tool_calls:
        pieces = split(call.argument_text(), call.chunks) if call.argument_text() else []
        block(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": {}},
            [{"type": "input_json_delta", "partial_json": p} for p in pieces],
        )
    out.epilogue.append(
        sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": _STOP[turn.finish_reason()], "stop_sequence": None},
                "usage": {"output_tokens": u.output},
            },
            "message_delta",
        )
    )
    out.epilogue.append(sse({"type": "message_stop"}, "message_stop"))
    return out


def failure_frame(failure: ScriptFailure) -> bytes:
    type_, message = _ERRORS[failure.kind]
    return sse(error_body(failure.message or message, type_), "error")
