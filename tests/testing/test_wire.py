"""The fake's streams look like the real APIs' streams, byte for byte in structure."""

from __future__ import annotations

from agent_tui.testing.fake_provider import FakeProvider, Turn
from agent_tui.testing.fake_provider.anthropic_wire import signature_for
from tests.testing.conftest import post, sse_events

OPENAI_BODY = {
    "model": "m",
    "stream": True,
    "stream_options": {"include_usage": True},
    "messages": [{"role": "user", "content": "hi"}],
}
ANTHROPIC_BODY = {"model": "m", "stream": True, "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}


async def test_openai_stream_shape(fake: FakeProvider, http) -> None:
    fake.add(
        Turn(
            reasoning="r",
            text="abcd",
            chunks=2,
            usage={"input": 3, "output": 4, "reasoning": 1, "cache_read": 2},
            tool_calls=[{"id": "c1", "name": "read", "arguments": {"p": 1}, "chunks": 3}],
        )
    )
    status, headers, text = await post(http, f"{fake.openai_base}/chat/completions", OPENAI_BODY)
    assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
    events = [data for _, data in sse_events(text)]
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert [d["reasoning_content"] for d in deltas if "reasoning_content" in d] == ["r"]
    assert [d["content"] for d in deltas[1:] if "content" in d] == ["ab", "cd"]
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert calls[0]["id"] == "c1" and calls[0]["function"]["name"] == "read"
    assert "".join(c["function"]["arguments"] for c in calls) == '{"p": 1}' and len(calls) == 3
    finish = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert finish == ["tool_calls"]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 5
    assert chunks[-1]["usage"]["completion_tokens_details"] == {"reasoning_tokens": 1}


async def test_openai_usage_only_when_asked(fake: FakeProvider, http) -> None:
    fake.add(Turn(text="x"))
    _, _, text = await post(http, f"{fake.openai_base}/chat/completions", {**OPENAI_BODY, "stream_options": None})
    assert all(data == "[DONE]" or data["choices"] for _, data in sse_events(text))


async def test_anthropic_stream_shape(fake: FakeProvider, http) -> None:
    fake.add(
        Turn(
            reasoning="think",
            text="hello",
            chunks=2,
            finish="length",
            usage={"input": 9, "output": 2, "cache_write": 4},
            tool_calls=[{"id": "toolu_1", "name": "bash", "arguments": {"command": "ls"}, "chunks": 2}],
        )
    )
    _, _, text = await post(http, f"{fake.base_url}/v1/messages", ANTHROPIC_BODY)
    events = sse_events(text)
    names = [name for name, _ in events]
    assert names[:2] == ["message_start", "ping"] and names[-2:] == ["message_delta", "message_stop"]
    assert all(name == data["type"] for name, data in events)
    starts = [data["content_block"] for name, data in events if name == "content_block_start"]
    assert [b["type"] for b in starts] == ["thinking", "text", "tool_use"]
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    assert {"type": "signature_delta", "signature": signature_for("think")} in deltas
    assert "".join(d["partial_json"] for d in deltas if d["type"] == "input_json_delta") == '{"command": "ls"}'
    indexes = [data["index"] for name, data in events if name == "content_block_start"]
    assert indexes == [0, 1, 2]
    message_delta = events[-2][1]
    assert message_delta["delta"]["stop_reason"] == "max_tokens" and message_delta["usage"] == {"output_tokens": 2}
    assert events[0][1]["message"]["usage"]["cache_creation_input_tokens"] == 4


async def test_error_event_and_drop(fake: FakeProvider, http) -> None:
    fake.add(
        Turn(text="abcdef", chunks=6, fail={"after": 2, "mode": "error_event"}),
        Turn(text="abcdef", chunks=6, fail={"after": 2, "mode": "error_event"}),
    )
    _, _, text = await post(http, f"{fake.base_url}/v1/messages", ANTHROPIC_BODY)
    events = sse_events(text)
    assert events[-1] == ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    _, _, text = await post(http, f"{fake.openai_base}/chat/completions", OPENAI_BODY)
    assert sse_events(text)[-1][1]["error"]["type"] == "server_error"


async def test_http_error_with_retry_after(fake: FakeProvider, http) -> None:
    fake.add(Turn(error={"status": 429, "retry_after": 12}), Turn(error={"status": 400, "kind": "context_overflow"}))
    status, headers, text = await post(http, f"{fake.openai_base}/chat/completions", OPENAI_BODY)
    assert (status, {k.lower(): v for k, v in headers.items()}["retry-after"]) == (
        429,
        "12",
    ) and "rate_limit_exceeded" in text
    status, _, text = await post(http, f"{fake.base_url}/v1/messages", ANTHROPIC_BODY)
    assert status == 400 and "prompt is too long" in text


async def test_non_streaming_answers(fake: FakeProvider, http) -> None:
    fake.add(Turn(text="whole"), Turn(text="whole", tool_calls=[{"id": "t", "name": "read", "arguments": {"a": 1}}]))
    _, _, text = await post(http, f"{fake.openai_base}/chat/completions", {**OPENAI_BODY, "stream": False})
    assert '"content": "whole"' in text
    _, _, text = await post(http, f"{fake.base_url}/v1/messages", {**ANTHROPIC_BODY, "stream": False})
    assert '"stop_reason": "tool_use"' in text and '"input": {"a": 1}' in text
