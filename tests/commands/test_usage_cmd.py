"""``agent-tui usage`` as a person runs it: a real store file of sessions spent on two days, in two
projects, with two models (one without a known price), read by a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_tui.core.api import events as ev
from agent_tui.core.api import paths
from agent_tui.core.store.store import Store
from agent_tui.vocab.clock import ManualClock
from agent_tui.vocab.usage import Usage

DAY1 = int(datetime(2026, 3, 2, 12, tzinfo=UTC).timestamp() * 1000)
DAY2 = int(datetime(2026, 3, 3, 12, tzinfo=UTC).timestamp() * 1000)


def agent_tui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "TZ": "UTC"},  # a day is a local day: pin the zone
        timeout=60,
    )


async def _session(
    store: Store, clock: ManualClock, sid: str, root: str, at: int, steps: list[tuple[str, int, int, float | None]]
) -> None:
    clock.now = at
    await store.publish(sid, ev.SessionCreated(location=root, project_root=root))
    for n, (model, tokens_in, tokens_out, cost) in enumerate(steps):
        amid = f"msg_{sid}_{n}"
        await store.publish(sid, ev.StepStarted(assistant_message_id=amid, agent="build", model=model))
        usage = Usage(input_tokens=tokens_in, output_tokens=tokens_out)
        source = None if cost is None else "config"
        await store.publish(
            sid, ev.StepEnded(assistant_message_id=amid, finish="stop", usage=usage, cost=cost, cost_source=source)
        )


@pytest.fixture
async def spent(tmp_path: Path) -> None:
    """Day 1: ses_a (project /p1, m1 twice); day 2: ses_b (/p1, m1 and the unpriced m2), ses_c (/p2, m1)."""
    clock = ManualClock()
    store = await Store.open(paths.database_path(), clock=clock)
    try:
        await _session(store, clock, "ses_a", "/p1", DAY1, [("m1", 100, 10, 0.5), ("m1", 200, 20, 0.25)])
        await _session(store, clock, "ses_b", "/p1", DAY2, [("m1", 1000, 100, 1.0), ("m2", 50, 5, None)])
        await _session(store, clock, "ses_c", "/p2", DAY2, [("m1", 10, 1, 0.125)])
    finally:
        await store.close()


def _json(*args: str) -> list[dict]:  # type: ignore[type-arg]
    out = agent_tui("usage", "--json", *args)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


async def test_usage_by_day_sums_each_day_in_a_table(spent: None) -> None:
    out = agent_tui("usage")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:3] == ["DAY", "SESSIONS", "STEPS"]
    day1 = next(line for line in lines if line.startswith("2026-03-02"))
    assert day1.split() == ["2026-03-02", "1", "2", "300", "30", "0", "0", "$0.7500"]
    day2 = next(line for line in lines if line.startswith("2026-03-03"))
    assert day2.split()[:5] == ["2026-03-03", "2", "3", "1,060", "106"]
    assert day2.endswith("$1.1250 + unknown")  # m2's step has no price: not summed as $0
    assert lines[-1].startswith("total") and lines[-1].endswith("$1.8750 + unknown")


async def test_usage_by_model_as_json_lines_keeps_an_unknown_cost_unknown(spent: None) -> None:
    rows = {r["key"]: r for r in _json("--by", "model")}
    assert set(rows) == {"m1", "m2"}
    assert rows["m1"]["input_tokens"] == 1310 and rows["m1"]["steps"] == 4 and rows["m1"]["sessions"] == 3
    assert rows["m1"]["cost"] == pytest.approx(1.875) and rows["m1"]["unpriced_steps"] == 0
    assert rows["m2"]["cost"] is None and rows["m2"]["unpriced_steps"] == 1 and rows["m2"]["by"] == "model"


async def test_usage_by_project_and_within_dates(spent: None) -> None:
    rows = {r["key"]: r for r in _json("--by", "project")}
    assert rows["/p1"]["sessions"] == 2 and rows["/p1"]["output_tokens"] == 135
    assert rows["/p2"]["input_tokens"] == 10
    only_day2 = _json("--by", "session", "--since", "2026-03-03")
    assert sorted(r["key"] for r in only_day2) == ["ses_b", "ses_c"]
    only_day1 = _json("--until", "2026-03-02")
    assert [r["key"] for r in only_day1] == ["2026-03-02"]
    assert _json("--by", "week")[0]["key"] == "2026-03-02"  # the Monday of the week
    assert [r["key"] for r in _json("--by", "month")] == ["2026-03"]


async def test_usage_chart_draws_tokens_and_cost_per_day(spent: None) -> None:
    out = agent_tui("usage", "--chart")
    assert out.returncode == 0, out.stderr
    assert "tokens (input + output)" in out.stdout and "cost ($, known prices only)" in out.stdout
    assert "2026-03-02" in out.stdout and "\x1b[" not in out.stdout  # no colour into a pipe


def test_a_bad_date_is_a_usage_error() -> None:
    out = agent_tui("usage", "--since", "yesterday")
    assert out.returncode == 2 and "YYYY-MM-DD" in out.stderr
