"""Usage and cost from the final chunk; closing or cancelling a stream closes the HTTP stream."""

from __future__ import annotations

import asyncio

from agent_tui import llm
from agent_tui.llm.types import Finish, Request, RequestText, UserTurn
from agent_tui.testing.fake_provider import FakeProvider, Turn
from tests.llm.conftest import collect


async def test_usage_is_captured(fake: FakeProvider, make_request, wire) -> None:
    fake.add(
        Turn(text="hi", usage={"input": 1200, "output": 80, "reasoning": 30, "cache_read": 1000, "cache_write": 150})
    )
    finish = (await collect(make_request()))[-1]
    assert isinstance(finish, Finish)
    usage = finish.usage
    assert usage.output_tokens == 80
    assert usage.cache_read_tokens == 1000
    # input_tokens is the whole prompt: cache reads (and Anthropic cache writes) are part of it.
    if wire.name == "openai":
        assert (usage.input_tokens, usage.reasoning_tokens) == (2200, 30)
    else:
        assert (usage.input_tokens, usage.cache_write_tokens) == (2350, 150)


async def test_cost_is_known_for_priced_models(fake: FakeProvider, wire) -> None:
    model = "openai/gpt-4o-mini" if wire.name == "openai" else "anthropic/claude-haiku-4-5"
    fake.add(Turn(text="hi", usage={"input": 1_000_000, "output": 0}), Turn(text="hi"))
    request = Request(
        model=model,
        api_base=wire.base(fake),
        api_key="k",
        max_tokens=100,
        messages=[UserTurn(parts=[RequestText(text="hi")])],
    )
    finish = (await collect(request))[-1]
    assert finish.cost is not None and finish.cost > 0
    unpriced = request.model_copy(update={"model": wire.model})
    assert (await collect(unpriced))[-1].cost is None


async def test_closing_the_iterator_closes_the_http_stream(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(text="x" * 400, chunks=400, delay_ms=5))
    events = llm.stream(make_request())
    seen = 0
    async for _ in events:
        seen += 1
        if seen == 5:
            break
    await events.aclose()
    await fake.wait_for("aborted", timeout=5)
    assert fake.stats.completed == 0


async def test_cancelling_the_consumer_closes_a_waiting_request(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(text="never", hold=True))

    async def consume() -> None:
        async for _ in llm.stream(make_request()):
            pass

    task = asyncio.create_task(consume())
    await fake.wait_for("held")
    await _cancel_and_see_abort(task, fake)
    assert task.cancelled()


async def test_cancelling_mid_stream(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(text="y" * 400, chunks=400, delay_ms=5))
    started = asyncio.Event()

    async def consume() -> None:
        async for _ in llm.stream(make_request()):
            started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 5)
    await _cancel_and_see_abort(task, fake)
    assert fake.stats.completed == 0


async def _cancel_and_see_abort(task: asyncio.Task, fake: FakeProvider) -> None:
    """Cancel the consumer, then wait until the server saw its client go away."""
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    await fake.wait_for("aborted", timeout=5)
