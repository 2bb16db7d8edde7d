"""Reasoning: streamed events, signatures kept as provider metadata, and replay rules on the next request."""

from __future__ import annotations

from typing import Any

from agent_tui.llm.types import (
    AssistantTurn,
    ReasoningBlock,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    RequestText,
    TextBlock,
    ToolCall,
    ToolSpec,
    ToolUse,
    ToolUseResult,
    UserTurn,
)
from agent_tui.testing.fake_provider import FakeProvider, Turn
from agent_tui.testing.fake_provider.anthropic_wire import signature_for
from tests.llm.conftest import collect

READ = ToolSpec(
    name="read", description="Read a file", parameters={"type": "object", "properties": {"path": {"type": "string"}}}
)
THOUGHT = "The user wants a file; I should read it first."


async def _first_step(fake: FakeProvider, make_request, model: str) -> AssistantTurn:
    """Run one tool-calling step with reasoning and fold its events into a history turn."""
    fake.add(
        Turn(
            reasoning=THOUGHT,
            reasoning_chunks=4,
            text="Reading.",
            tool_calls=[{"id": "call_t1", "name": "read", "arguments": {"path": "a"}}],
        )
    )
    events = await collect(make_request(tools=[READ]))
    end = next(e for e in events if isinstance(e, ReasoningEnd))
    call = next(e for e in events if isinstance(e, ToolCall))
    return AssistantTurn(
        model=model,
        parts=[
            ReasoningBlock(text=end.text, provider_meta=end.provider_meta),
            TextBlock(text="Reading."),
            ToolUse(call_id=call.call_id, name=call.name, input=call.input, result=ToolUseResult(ok=True, text="data")),
        ],
    )


def _assistant_message(body: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in body["messages"] if m["role"] == "assistant")


async def test_reasoning_streams_as_its_own_fragment(fake: FakeProvider, make_request, wire) -> None:
    fake.add(Turn(reasoning=THOUGHT, reasoning_chunks=3, text="Answer."))
    events = await collect(make_request())
    assert isinstance(events[0], ReasoningStart)
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == THOUGHT
    end = next(e for e in events if isinstance(e, ReasoningEnd))
    assert end.text == THOUGHT
    if wire.name == "anthropic":
        assert end.provider_meta == {
            "thinking_blocks": [{"type": "thinking", "thinking": THOUGHT, "signature": signature_for(THOUGHT)}]
        }
    else:
        assert end.provider_meta == {}
    assert [e.kind for e in events].index("reasoning.end") < [e.kind for e in events].index("text.start")


async def test_signed_thinking_goes_back_for_the_same_model(fake: FakeProvider, make_request, wire) -> None:
    turn = await _first_step(fake, make_request, wire.model)
    fake.add(Turn(text="Done."))
    await collect(make_request(UserTurn(parts=[RequestText(text="read a")]), turn, tools=[READ]))
    assert fake.requests[1].rejected is None
    message = _assistant_message(fake.requests[1].body)
    if wire.name == "anthropic":
        assert message["content"][0] == {"type": "thinking", "thinking": THOUGHT, "signature": signature_for(THOUGHT)}
        assert [b["type"] for b in message["content"]] == ["thinking", "text", "tool_use"]
    else:
        # OpenAI-compatible reasoning is not replayed to the model that produced it.
        assert message["content"] == "Reading."
        assert THOUGHT not in str(fake.requests[1].body)


async def test_after_a_model_switch_reasoning_is_plain_text(fake: FakeProvider, make_request, wire) -> None:
    turn = await _first_step(fake, make_request, wire.model.replace("fake", "older"))
    fake.add(Turn(text="Done."))
    await collect(make_request(UserTurn(parts=[RequestText(text="read a")]), turn, tools=[READ]))
    assert fake.requests[1].rejected is None
    body = fake.requests[1].body
    assert "thinking" not in str(
        [b.get("type") for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    )
    assert signature_for(THOUGHT) not in str(body)
    message = _assistant_message(body)
    text = (
        message["content"]
        if isinstance(message["content"], str)
        else " ".join(b.get("text", "") for b in message["content"] if b["type"] == "text")
    )
    assert THOUGHT in text and "Reading." in text


async def test_a_failed_step_never_replays_native_reasoning(fake: FakeProvider, make_request, wire) -> None:
    turn = await _first_step(fake, make_request, wire.model)
    failed = turn.model_copy(update={"failed": True})
    fake.add(Turn(text="Done."))
    await collect(make_request(UserTurn(parts=[RequestText(text="read a")]), failed, tools=[READ]))
    body = fake.requests[1].body
    assert fake.requests[1].rejected is None
    assert signature_for(THOUGHT) not in str(body) and THOUGHT in str(body)


async def test_thinking_enabled_tool_loop_is_accepted_with_replay(fake: FakeProvider) -> None:
    # With thinking on, Anthropic insists the last tool-using assistant turn starts with its thinking block.
    from agent_tui.llm.types import Request

    model = "anthropic/claude-sonnet-4-5"  # a model LiteLLM knows supports thinking (served by the fake)

    def request(*messages: Any) -> Request:
        return Request(
            model=model,
            api_base=fake.base_url,
            api_key="k",
            max_tokens=4096,
            tools=[READ],
            messages=[UserTurn(parts=[RequestText(text="read a")]), *messages],
            extra={"thinking": {"type": "enabled", "budget_tokens": 1024}},
        )

    fake.add(
        Turn(reasoning=THOUGHT, tool_calls=[{"id": "call_k", "name": "read", "arguments": {"path": "a"}}]),
        Turn(text="Done."),
    )
    events = await collect(request())
    end = next(e for e in events if isinstance(e, ReasoningEnd))
    call = next(e for e in events if isinstance(e, ToolCall))
    turn = AssistantTurn(
        model=model,
        parts=[
            ReasoningBlock(text=end.text, provider_meta=end.provider_meta),
            ToolUse(call_id=call.call_id, name=call.name, input=call.input, result=ToolUseResult(ok=True, text="data")),
        ],
    )
    await collect(request(turn))
    assert fake.requests[0].body["thinking"]["type"] == "enabled"
    assert [r.rejected for r in fake.requests] == [None, None]


async def test_thinking_is_paused_when_the_tool_loop_cannot_replay_it(fake: FakeProvider) -> None:
    # A model switch mid tool loop leaves no signed thinking to replay; the real API would refuse
    # "thinking enabled" then, so the adapter sends this one request without it.
    from agent_tui.llm.types import Request

    turn = AssistantTurn(
        model="anthropic/claude-other",
        parts=[
            ReasoningBlock(
                text=THOUGHT,
                provider_meta={
                    "thinking_blocks": [{"type": "thinking", "thinking": THOUGHT, "signature": "sig-other"}]
                },
            ),
            ToolUse(call_id="call_s", name="read", input={"path": "a"}, result=ToolUseResult(ok=True, text="data")),
        ],
    )
    fake.add(Turn(text="Done."))
    request = Request(
        model="anthropic/claude-sonnet-4-5",
        api_base=fake.base_url,
        api_key="k",
        max_tokens=4096,
        tools=[READ],
        messages=[UserTurn(parts=[RequestText(text="read a")]), turn],
        extra={"thinking": {"type": "enabled", "budget_tokens": 1024}},
    )
    await collect(request)
    assert fake.requests[0].rejected is None
    assert "thinking" not in fake.requests[0].body


async def test_redacted_thinking_round_trips(fake: FakeProvider) -> None:
    from agent_tui.llm.types import Request

    fake.add(
        Turn(
            reasoning=THOUGHT,
            redacted_thinking="OPAQUE",
            tool_calls=[{"id": "call_r", "name": "read", "arguments": {}}],
        ),
        Turn(text="Done."),
    )
    request = Request(
        model="anthropic/claude-sonnet-4-5",
        api_base=fake.base_url,
        api_key="k",
        max_tokens=4096,
        tools=[READ],
        messages=[UserTurn(parts=[RequestText(text="go")])],
        extra={"thinking": {"type": "enabled", "budget_tokens": 1024}},
    )
    events = await collect(request)
    end = next(e for e in events if isinstance(e, ReasoningEnd))
    assert [b["type"] for b in end.provider_meta["thinking_blocks"]] == ["thinking", "redacted_thinking"]
    turn = AssistantTurn(
        model=request.model,
        parts=[
            ReasoningBlock(text=end.text, provider_meta=end.provider_meta),
            ToolUse(call_id="call_r", name="read", input={}, result=ToolUseResult(ok=True, text="data")),
        ],
    )
    await collect(request.model_copy(update={"messages": [*request.messages, turn]}))
    assert fake.requests[1].rejected is None
    replayed = _assistant_message(fake.requests[1].body)["content"]
    assert replayed[1] == {"type": "redacted_thinking", "data": "OPAQUE"} and replayed[-1]["type"] == "tool_use"
