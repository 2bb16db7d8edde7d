"""``Sessions.context_breakdown``: the next request part by part, measured on what the runner would send."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.api import ContextBreakdown
from agent_tui.core.log import events as ev
from agent_tui.core.request import budget
from agent_tui.core.runtime import Runtime
from agent_tui.llm import types as llm
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


WINDOW = {"models": {"openai/fake-model": {"context_window": 200_000, "max_output_tokens": 8_000}}}
LINE = "x" * 79 + "\n"  # 200 lines: 16,000 characters


async def _runners_request(runtime: Runtime, sid: str) -> llm.Request:
    """The request the runner's next step would build now (its own ``_request``, not the breakdown's)."""
    session = await runtime.sessions.get(sid)
    services = await runtime._services(session)
    agent = session.agent or services.settings.agent
    model = session.model or services.settings.model or ""
    history = await runtime._store.messages(sid)
    return await runtime._runner._request(session, services, history, agent, model, False)


def _assert_adds_up(breakdown: ContextBreakdown, request: llm.Request) -> None:
    assert sum(part.tokens for part in breakdown.parts) == breakdown.total
    assert breakdown.total == budget.tokens_for(budget.request_chars(request))
    tools = budget.tokens_for(budget.tools_chars(request.tools))
    assert tools > 0 and abs(breakdown.part("tools").tokens - tools) <= 1  # parts round on the running total
    assert breakdown.free == breakdown.window - breakdown.total - breakdown.reserve  # type: ignore[operator]


def _sources(breakdown: ContextBreakdown) -> dict[str, int]:
    return {source.key: source.tokens for source in breakdown.part("instructions").sources}


async def test_pruned_shows_after_big_tool_outputs_and_the_parts_are_the_runners_request(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    steps = 8
    for n in range(steps):
        (workdir / f"big{n}.txt").write_text(f"file {n}\n" + LINE * 200)
    reads = [
        {"tool_calls": [{"id": f"call_{n}", "name": "read", "arguments": {"path": f"big{n}.txt"}}]}
        for n in range(steps)
    ]
    fake.add(*reads, {"text": "read them all"})
    context = {"context": {"prune_protect_tokens": 8_000, "prune_minimum_tokens": 8_000}, **WINDOW}
    async with await open_runtime(cli=context, tools="all", policy="allow", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "read every big file", resume=False)
        assert await runtime.sessions.run(sid) is None

        breakdown = await runtime.sessions.context_breakdown(sid)
        request = await _runners_request(runtime, sid)

    _assert_adds_up(breakdown, request)
    assert breakdown.session_id == sid and breakdown.model == "openai/fake-model"
    # The six oldest reads (~4,400 tokens each with line numbers, less a stub) went; the two newest stay.
    assert breakdown.pruned_calls == 6
    assert 6 * 4_100 < breakdown.pruned < 6 * 4_400
    assert 2 * 4_300 < breakdown.part("history").tokens < 2 * 4_500 + 3_000
    assert breakdown.window == 200_000 and breakdown.reserve == 20_000  # the buffer outweighs 8,000


async def test_instructions_by_source_with_a_configured_file_before_and_after_the_first_step(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    rules = workdir / "docs" / "rules.md"
    rules.parent.mkdir()
    rules.write_text("Always run the linter. " * 100)  # 2,300 characters
    (workdir / "AGENTS.md").write_text("Use tabs.")
    fake.add({"text": "one"}, {"text": "two"})
    settings = {"instructions": ["docs/rules.md"], **WINDOW}
    async with await open_runtime(cli=settings, clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id

        before = await runtime.sessions.context_breakdown(sid)
        # Observed now, published never: the log holds only the session's creation.
        assert [e.type for e in await runtime._store.events(sid, limit=None)] == [ev.SessionCreated.TYPE]
        sources = _sources(before)
        assert list(sources) == [
            "core/environment",
            "core/date",
            "core/instructions",
            "core/nested",
            "core/configured",
            "core/skills",
            "core/references",
            "core/mcp",
            "core/mcp_resources",
        ]
        assert 575 <= sources["core/configured"] < 650  # the file's 2,300 characters and its heading
        assert 0 < sources["core/instructions"] < 40

        await runtime.sessions.prompt(sid, "first", resume=False)
        assert await runtime.sessions.run(sid) is None
        after = await runtime.sessions.context_breakdown(sid)
        assert after.part("instructions") == before.part("instructions")  # the checkpoint is what was observed
        _assert_adds_up(after, await _runners_request(runtime, sid))

        # An edit becomes an instructions.updated message: counted under instructions, not history.
        rules.write_text("Never run the linter. " * 200)
        await runtime.sessions.prompt(sid, "second", resume=False)
        assert await runtime.sessions.run(sid) is None
        updated = await runtime.sessions.context_breakdown(sid)
        _assert_adds_up(updated, await _runners_request(runtime, sid))
        grown = updated.part("instructions").tokens - after.part("instructions").tokens
        assert 1_100 < grown < 1_250  # the update restates the 4,400-character file
        assert updated.part("history").tokens - after.part("history").tokens < 100
        assert _sources(updated)["core/configured"] > sources["core/configured"] + 500


async def test_a_first_request_where_no_session_is(open_runtime: Any, workdir: Path) -> None:
    async with await open_runtime(cli=WINDOW) as runtime:
        breakdown = await runtime.sessions.context_breakdown(location=workdir)
        assert await runtime.sessions.list() == []
    assert breakdown.session_id is None and breakdown.model == "openai/fake-model"
    assert breakdown.part("history").tokens == 0 and breakdown.pruned == 0
    assert breakdown.part("system").tokens > 500 and breakdown.part("instructions").tokens > 0
    assert "core/environment" in _sources(breakdown)
    assert breakdown.free == 200_000 - breakdown.total - 20_000
