"""A step's cost and its source in the log (issue 30, "usage and cost in the log"): the provider's
figure wins, else the configured price, else LiteLLM's map; an unknown price stays unknown."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import of_type, stored

PRICED = {"models": {"openai/fake-model": {"input_cost_per_million": 2.0, "output_cost_per_million": 10.0}}}


async def _step(runtime: Runtime, fake: FakeProvider, workdir: Any, usage: dict[str, Any]) -> ev.StepEnded:
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "how much?", resume=False)
    fake.add({"text": "this much", "usage": usage})
    assert await runtime.sessions.run(sid) is None
    return of_type(await stored(runtime, sid), ev.StepEnded)[0]


async def test_a_configured_price_costs_the_step_and_is_named_as_its_source(
    open_runtime: Any, fake: FakeProvider, workdir: Any
) -> None:
    async with await open_runtime(cli=PRICED, policy="allow") as runtime:
        ended = await _step(runtime, fake, workdir, {"input": 1000, "output": 500})
    assert ended.usage.input_tokens == 1000 and ended.usage.output_tokens == 500
    assert ended.cost == pytest.approx(1000 * 2.0 / 1e6 + 500 * 10.0 / 1e6)
    assert ended.cost_source == "config"


async def test_cached_tokens_cost_the_cache_price_or_else_the_input_price(
    open_runtime: Any, fake: FakeProvider, workdir: Any
) -> None:
    prices = {"input_cost_per_million": 2.0, "output_cost_per_million": 10.0, "cache_read_cost_per_million": 0.5}
    async with await open_runtime(cli={"models": {"openai/fake-model": prices}}, policy="allow") as runtime:
        ended = await _step(runtime, fake, workdir, {"input": 1000, "cache_read": 4000, "output": 0})
    assert ended.usage.input_tokens == 5000 and ended.usage.cache_read_tokens == 4000
    assert ended.cost == pytest.approx((1000 * 2.0 + 4000 * 0.5) / 1e6)


async def test_the_cost_the_provider_reports_wins_over_a_configured_price(
    open_runtime: Any, fake: FakeProvider, workdir: Any
) -> None:
    async with await open_runtime(cli=PRICED, policy="allow") as runtime:
        ended = await _step(runtime, fake, workdir, {"input": 1000, "output": 500, "cost": 0.0123})
    assert ended.cost == pytest.approx(0.0123)
    assert ended.cost_source == "provider"


async def test_a_model_without_a_price_has_an_unknown_cost_never_zero(
    open_runtime: Any, fake: FakeProvider, workdir: Any
) -> None:
    async with await open_runtime(policy="allow") as runtime:
        ended = await _step(runtime, fake, workdir, {"input": 1000, "output": 500})
    assert ended.usage.output_tokens == 500
    assert ended.cost is None and ended.cost_source is None


def test_a_step_logged_before_cost_sources_still_reads() -> None:
    old = '{"assistant_message_id": "msg_a", "finish": "stop", "usage": {"input_tokens": 3}, "cost": 0.5}'
    event = ev.decode(ev.StepEnded.TYPE, old)
    assert isinstance(event, ev.StepEnded)
    assert event.cost == 0.5 and event.cost_source is None and event.usage.input_tokens == 3


async def test_an_export_and_import_keep_the_cost_and_its_source(
    open_runtime: Any, fake: FakeProvider, workdir: Any
) -> None:
    async with await open_runtime(cli=PRICED, policy="allow") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "how much?", resume=False)
        fake.add({"text": "this much", "usage": {"input": 1000, "output": 500, "cost": 0.0123}})
        assert await runtime.sessions.run(sid) is None
        copy = await runtime.sessions.transfer.import_session(
            await runtime.sessions.transfer.export(sid), location=workdir
        )
        ended = of_type(await stored(runtime, copy.id), ev.StepEnded)[0]
        spent = await runtime.sessions.usage(copy.id)
    assert ended.cost == pytest.approx(0.0123) and ended.cost_source == "provider"
    assert spent.total.cost == pytest.approx(0.0123) and spent.total.input_tokens == 1000


async def test_spent_stays_spent_a_rewind_keeps_it_and_a_fork_counts_only_its_own(
    open_runtime: Any, fake: FakeProvider, workdir: Any
) -> None:
    async with await open_runtime(cli=PRICED, policy="allow") as runtime:
        sessions = runtime.sessions
        sid = (await sessions.create(location=workdir)).id
        await sessions.prompt(sid, "first", resume=False)
        fake.add({"text": "one", "usage": {"input": 1000, "output": 0}})
        assert await sessions.run(sid) is None
        fork = await sessions.fork(sid)
        prompt = (await sessions.rewind_points(sid))[0]
        await sessions.rewind(sid, prompt.message_id, "conversation")
        kept = await sessions.usage(sid)
        forked = await sessions.usage(fork.id)
    assert kept.total.steps == 1 and kept.total.cost == pytest.approx(0.002)  # the rewound step was billed
    assert forked.total.steps == 0 and forked.total.cost is None  # the fork's copied history is the parent's spend
