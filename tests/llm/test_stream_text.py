"""Text streaming through LiteLLM against the fake provider, on both wire formats."""

from __future__ import annotations

from agent_tui.llm.types import Finish, FinishReason, TextDelta, TextEnd, TextStart
from agent_tui.testing.fake_provider import FakeProvider, Turn
from tests.llm.conftest import collect


async def test_text_arrives_in_chunks_then_finish(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(text="Hello, streaming world!", chunks=4))
    events = await collect(make_request())
    assert isinstance(events[0], TextStart)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) == 4 and "".join(deltas) == "Hello, streaming world!"
    ends = [e for e in events if isinstance(e, TextEnd)]
    assert [e.text for e in ends] == ["Hello, streaming world!"]
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.reason is FinishReason.STOP
    assert fake.accepted and fake.requests[0].rejected is None


async def test_system_prompt_and_user_text_reach_the_provider(fake: FakeProvider, make_request, wire) -> None:
    fake.add(Turn(text="ok"))
    await collect(make_request())
    body = fake.requests[0].body
    if wire.name == "openai":
        assert body["messages"][0]["role"] == "system"
        assert body["messages"][0]["content"][0]["text"] == "You are a test agent."
        assert body["stream_options"] == {"include_usage": True}
    else:
        assert body["system"][0]["text"] == "You are a test agent."
        assert [m["role"] for m in body["messages"]] == ["user"]
    assert body["stream"] is True
