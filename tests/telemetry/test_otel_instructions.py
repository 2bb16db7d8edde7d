"""Reference 001's operational metrics for instruction observation, from real sessions to a collector
started here: contention (what a look queued for) and the growth of the chronological updates since
the baseline, which a compaction's rebaseline resets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.log import waits
from agent_tui.testing.fake_provider import FakeProvider
from tests.core.run.compaction.helpers import SUMMARY
from tests.fakes.otlp_receiver import OtlpReceiver, attributes_of


def _telemetry(endpoint: str) -> dict[str, Any]:
    return {"telemetry": {"otlp_endpoint": endpoint, "service_name": "agent-tui-test"}}


async def test_updates_since_the_baseline_grow_then_a_compaction_resets_them(
    open_runtime: Any, fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    agents = workdir / "AGENTS.md"
    agents.write_text("Project rule: use tabs.")
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"}, {"text": SUMMARY}, {"text": "four"}, {"text": "five"})
    async with await open_runtime(cli=_telemetry(collector.endpoint), policy="allow") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id

        async def turn(prompt: str, rule: str) -> None:
            agents.write_text(rule)
            await runtime.sessions.prompt(sid, prompt, resume=False)
            assert await runtime.sessions.run(sid) is None

        await turn("first", "Project rule: use tabs.")
        await turn("second", "Project rule: use spaces.")  # update 1 since the baseline
        await turn("third", "Project rule: use two spaces.")  # update 2
        await runtime.sessions.compact(sid, resume=False)
        assert await runtime.sessions.run(sid) is None
        await turn("fourth", "Project rule: use two spaces.")  # the look before it rebaselines
        await turn("fifth", "Project rule: use four spaces.")  # update 1 again
        stored = await runtime._store.events(sid, limit=None)  # noqa: SLF001
    updates = [len(e.event.text) for e in stored if isinstance(e.event, ev.InstructionsUpdated)]
    baselines = [e for e in stored if isinstance(e.event, ev.InstructionsBaselined)]
    assert len(updates) == 3 and len(baselines) == 2

    (looks,) = collector.points("agent_tui.instructions.observation.duration")
    (growth,) = collector.points("agent_tui.instructions.updates.since_baseline")
    (size,) = collector.points("agent_tui.instructions.updates.since_baseline.size")
    assert growth.count == size.count == looks.count  # every look says where the growth stands
    assert (growth.min, growth.max) == (0, 2)  # three updates in all, never more than two on one baseline
    assert (size.min, size.max) == (0, updates[0] + updates[1])  # not all three: the last one started over

    contention = {
        attributes_of(p)["agent_tui.instructions.waited_for"]: p
        for p in collector.points("agent_tui.instructions.contention")
    }
    assert set(contention) == {waits.READER, waits.WRITER, waits.THREADS}
    assert contention[waits.READER].count == contention[waits.THREADS].count == looks.count
    assert contention[waits.WRITER].count == len(updates) + len(baselines)  # only the looks that wrote
    assert all(point.sum >= 0 for point in contention.values())
