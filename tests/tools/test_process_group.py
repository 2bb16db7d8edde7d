"""Finding a dead agent's tool processes by the mark in their environment."""

from __future__ import annotations

import os
import subprocess
import time

from agent_tui.tools.process_group import TOOL_MARK_ENV, kill_marked, tool_mark


def _sleeper(mark: str | None) -> subprocess.Popen:
    env = dict(os.environ)
    if mark is not None:
        env[TOOL_MARK_ENV] = mark
    return subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)


def test_only_processes_with_the_mark_are_killed() -> None:
    mine, other_call, unmarked = (
        _sleeper(tool_mark("ses_a", "call_1")),
        _sleeper(tool_mark("ses_a", "call_2")),
        _sleeper(None),
    )
    try:
        assert kill_marked({tool_mark("ses_a", "call_1"), tool_mark("ses_b", "call_1")}) == 1
        assert mine.wait(timeout=10) == -9
        time.sleep(0.05)
        assert other_call.poll() is None and unmarked.poll() is None
        assert kill_marked(set()) == 0
    finally:
        for proc in (mine, other_call, unmarked):
            proc.kill()
            proc.wait()


def test_a_mark_is_matched_whole() -> None:
    longer = _sleeper(tool_mark("ses_a", "call_10"))
    try:
        assert kill_marked({tool_mark("ses_a", "call_1")}) == 0 and longer.poll() is None
    finally:
        longer.kill()
        longer.wait()
