"""OpenAI chat completions as the real API streams it (``POST /v1/chat/completions``)."""

from __future__ import annotations

import time
from typing import Any

from agent_tui.testing.fake_provider.frames import HttpError, Rendered, sse
from agent_tui.testing.fake_provider.script import ScriptError, ScriptFailure, Turn, split

_ERROR_TYPES = {
    "rate_limit": ("rate_limit_exceeded", "requests", "Rate limit reached for requests. Please try again later."),
    "overloaded": ("server_error", None, "The server is overloaded. Please retry your request."),
    "internal": ("server_error", None, "The server had an error while processing your request."),
    "auth": ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    "invalid_request": ("invalid_request_error", None, "Invalid request."),
    "content_filter": (
        "invalid_request_error",
        "content_filter",
        "The response was filtered due to the prompt triggering the content management policy.",
    ),
    "context_overflow": (
        "invalid_request_error",
        "context_length_exceeded",
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. "
        "Please reduce the length of the messages.",
    ),
}


def error_body(
    message: str, type_: str = "invalid_request_error", code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def default_kind(status: int) -> str:
    return {429: "rate_limit", 401: "auth", 403: "auth", 400: "invalid_request", 503: "overloaded"}.get(
        status, "internal"
    )


def http_error(error: ScriptError) -> HttpError:
    kind = error.kind or default_kind(error.status)
    type_, code, message = _ERROR_TYPES[kind]
    headers = {}
    if error.retry_after is not None:
        headers["retry-after"] = f"{error.retry_after:g}"
    if error.retry_after_ms is not None:
        headers["retry-after-ms"] = str(error.retry_after_ms)
    return HttpError(error.status, error_body(error.message or message, type_, code), headers)


class _Chunks:
    def __init__(self, model: str) -> None:
        self.base = {
            "id": f"chatcmpl-fake{time.monotonic_ns()}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_fake",
        }

    def choice(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        return sse({**self.base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})

    def usage(self, usage: dict[str, Any]) -> bytes:
        return sse({**self.base, "choices": [], "usage": usage})


def render(turn: Turn, model: str, include_usage: bool) -> Rendered:
    chunks = _Chunks(model)
    out = Rendered(prelude=[chunks.choice({"role": "assistant", "content": ""})])
    if turn.reasoning:
        for piece in split(turn.reasoning, turn.reasoning_chunks):
            out.content.append(chunks.choice({"reasoning_content": piece}))
    if turn.text:
        for piece in split(turn.text, turn.chunks):
            out.content.append(chunks.choice({"content": piece}))
    for position, call in enumerate(turn.tool_calls):
        index = position if call.index is None else call.index
        pieces = split(call.argument_text(), call.chunks)
        out.content.append(
            chunks.choice(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": pieces[0]},
                        }
                    ]
                }
            )
        )
        for piece in pieces[1:]:
            out.content.append(chunks.choice({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    out.epilogue.append(chunks.choice({}, turn.finish_reason()))
    if include_usage:
        u = turn.usage
        usage: dict[str, Any] = {
            "prompt_tokens": u.input + u.cache_read,
            "completion_tokens": u.output,
            "total_tokens": u.input + u.cache_read + u.output,
            "prompt_tokens_details": {"cached_tokens": u.cache_read},
            "completion_tokens_details": {"reasoning_tokens": u.reasoning},
        }
        if u.cost is not None:
            usage["cost"] = u.cost
        out.epilogue.append(chunks.usage(usage))
    out.epilogue.append(b"data: [DONE]\n\n")
    return out


def failure_frame(failure: ScriptFailure) -> bytes:
    type_, code, message = _ERROR_TYPES[failure.kind]
    return sse(error_body(failure.message or message, type_, code))
