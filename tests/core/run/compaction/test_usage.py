"""What a compaction's summary call spends is recorded like a step's (issue 30): tokens, cost and
its source on the compaction's ended or failed event, a ``step_usage`` row under its model and the
``compaction`` agent, the session's totals; ``/usage`` (``Sessions.usage``) and ``agent-tui usage``
show it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import MODEL, of_type, settle, stored
from .helpers import SUMMARY

PRICED = {"models": {MODEL: {"input_cost_per_million": 2.0, "output_cost_per_million": 10.0}}}


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return PRICED


async def _compacted(runtime: Runtime, fake: FakeProvider, workdir: Any, summary: dict[str, Any]) -> str:
    fake.add({"text": "the answer", "usage": {"input": 1000, "output": 100}}, summary)
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await settle(runtime, sid)
    await runtime.sessions.compact(sid)
    await settle(runtime, sid)
    return sid


async def test_a_compactions_call_is_counted_under_its_model_and_as_compaction(
    runtime: Runtime, fake: FakeProvider, workdir: Any
) -> None:
    sid = await _compacted(runtime, fake, workdir, {"text": SUMMARY, "usage": {"input": 300, "output": 60}})
    [ended] = of_type(await stored(runtime, sid), ev.CompactionEnded)
    assert ended.model == MODEL and ended.usage is not None
    assert (ended.usage.input_tokens, ended.usage.output_tokens) == (300, 60)
    assert ended.cost == pytest.approx((300 * 2.0 + 60 * 10.0) / 1e6) and ended.cost_source == "config"

    spent = await runtime.sessions.usage(sid)
    by_agent = {row.key: row for row in spent.by_agent}
    assert set(by_agent) == {"build", "compaction"}
    assert (by_agent["compaction"].input_tokens, by_agent["compaction"].output_tokens) == (300, 60)
    assert by_agent["compaction"].cost == pytest.approx(ended.cost)
    [by_model] = spent.by_model
    assert by_model.key == MODEL and by_model.input_tokens == 1300 and by_model.steps == 2
    session = await runtime.sessions.get(sid)
    assert session.input_tokens == 1300 and session.output_tokens == 160

    await runtime._store.rebuild()  # the projection replays to the same ledger
    assert {row.key: row.input_tokens for row in (await runtime.sessions.usage(sid)).by_agent} == {
        "build": 1000,
        "compaction": 300,
    }

    report = subprocess.run(
        [sys.executable, "-m", "agent_tui", "usage", "--by", "agent", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
    )
    assert report.returncode == 0, report.stderr
    rows = {row["key"]: row for row in map(json.loads, report.stdout.splitlines())}
    assert rows["compaction"]["input_tokens"] == 300 and rows["compaction"]["output_tokens"] == 60
    assert rows["compaction"]["cost"] == pytest.approx(ended.cost)


async def test_a_billed_summary_that_failed_still_counts(runtime: Runtime, fake: FakeProvider, workdir: Any) -> None:
    sid = await _compacted(runtime, fake, workdir, {"text": "", "usage": {"input": 250, "output": 0, "cost": 0.01}})
    [failed] = of_type(await stored(runtime, sid), ev.CompactionFailed)
    assert failed.error.type == "compaction.empty"
    assert failed.usage is not None and failed.usage.input_tokens == 250
    assert failed.cost == pytest.approx(0.01) and failed.cost_source == "provider"
    by_agent = {row.key: row for row in (await runtime.sessions.usage(sid)).by_agent}
    assert by_agent["compaction"].input_tokens == 250 and by_agent["compaction"].cost == pytest.approx(0.01)


async def test_a_compaction_that_no_call_finished_records_nothing(
    runtime: Runtime, fake: FakeProvider, workdir: Any
) -> None:
    sid = await _compacted(runtime, fake, workdir, {"error": {"status": 401, "kind": "auth", "message": "bad key"}})
    [failed] = of_type(await stored(runtime, sid), ev.CompactionFailed)
    assert failed.usage is None and failed.model is None
    assert {row.key for row in (await runtime.sessions.usage(sid)).by_agent} == {"build"}


def test_a_compaction_logged_before_usage_was_recorded_still_reads() -> None:
    old = '{"message_id": "msg_c", "reason": "manual", "summary": "s", "recent": "", "input_id": null}'
    event = ev.decode(ev.CompactionEnded.TYPE, old)
    assert isinstance(event, ev.CompactionEnded) and event.usage is None and event.cost is None


@pytest.mark.parametrize(
    "summary",
    [
        {"text": SUMMARY, "usage": {"input": 300, "output": 60}},  # ended, priced from config
        {"text": "", "usage": {"input": 250, "output": 0, "cost": 0.01}},  # failed, billed by the provider
    ],
    ids=["ended", "failed"],
)
async def test_an_export_carries_a_compactions_spend_and_its_import_counts_it_again(
    runtime: Runtime, fake: FakeProvider, workdir: Any, summary: dict[str, Any]
) -> None:
    sid = await _compacted(runtime, fake, workdir, summary)
    exported = await runtime.sessions.transfer.export(sid)
    [done] = [
        r["event"]
        for r in map(json.loads, exported.splitlines())
        if r["type"] == "agent.event" and r["event"]["type"] == "compaction_complete"
    ]
    assert done["model"] == MODEL and done["usage"]["input_tokens"] == summary["usage"]["input"]
    assert done["cost"] is not None and done["cost_source"] in ("config", "provider")

    copy = (await runtime.sessions.transfer.import_session(exported, location=workdir)).id
    before, after = await runtime.sessions.usage(sid), await runtime.sessions.usage(copy)
    assert {row.key for row in before.by_agent} == {"build", "compaction"}
    assert after.model_dump(exclude={"session_id"}) == before.model_dump(exclude={"session_id"})  # /usage agrees
    report = {row.key: row for row in await runtime.sessions.usage_report("session")}  # agent-tui usage agrees
    assert report[copy].model_dump(exclude={"key", "label"}) == report[sid].model_dump(exclude={"key", "label"})
    again = [
        r
        for r in map(json.loads, (await runtime.sessions.transfer.export(copy)).splitlines())
        if r["type"] == "agent.event"
    ]
    assert done in [r["event"] for r in again]  # and a second round trip carries it on
