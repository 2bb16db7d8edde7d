"""``agent-tui run`` killed with SIGKILL right after each of its durable commits, then continued."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import LaunchMode

from .scenario import FINAL, MODEL, PROMPT, Point, Responder, stored_log
from .sweep import KILLED, Outcome, agent_tui, recovered, report, session_id, sweep


@pytest.mark.timeout(900)
async def test_every_commit_point_of_a_run_recovers(
    crash_fake: FakeProvider, responder: Responder, tmp_path: Path, launch_mode: LaunchMode
) -> None:
    flags = ["--model", MODEL, "--api-base", crash_fake.openai_base, "--permission", "allow"]

    async def check(n: int, point: Point) -> Outcome:
        model = [*flags, "--api-key", point.key]
        code, _, err = await agent_tui(point, "run", *model, PROMPT, mode=launch_mode, kill_after=n)
        if code == 0:
            return Outcome(point, killed=False, problems=[])
        if code != KILLED:
            return Outcome(point, True, [f"the first run exited {code}, not by SIGKILL: {err.strip()[-400:]}"])
        sid = session_id(point)
        assert sid is not None, f"commit {n} was made, yet no session exists"
        admitted = any(e["type"] == "prompt.admitted" for e in stored_log(point.database))
        again = [] if admitted else [PROMPT]  # the prompt never became durable: the user sends it again
        code, out, err = await agent_tui(point, "run", *model, "--session", sid, *again, mode=launch_mode)
        problems = [] if code == 0 else [f"the continuation exited {code}: {err.strip()[-400:]}"]
        if code == 0 and out.strip() != FINAL:
            problems.append(f"the continuation printed {out.strip()!r}, not the answer")
        return Outcome(point, True, problems + await recovered(point, responder))

    report(await sweep(tmp_path, check))
