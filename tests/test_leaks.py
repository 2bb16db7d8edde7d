"""The run's own leak check (``tests/leaks.py``): it finds what a run left running, and only that."""

from __future__ import annotations

import os
import subprocess
import sys

from tests import leaks


def test_a_process_left_running_is_found_killed_and_named_and_another_runs_is_not() -> None:
    sleeper = [sys.executable, "-c", "import time; time.sleep(300)"]
    ours = subprocess.Popen(sleeper, env={**os.environ, leaks.RUN_MARK_ENV: "this-test-run"}, start_new_session=True)
    theirs = subprocess.Popen(sleeper, env={**os.environ, leaks.RUN_MARK_ENV: "another-run"})
    try:
        killed = leaks.sweep("this-test-run", grace_s=0.1)
        assert list(killed) == [ours.pid] and "time.sleep(300)" in killed[ours.pid]
        assert ours.wait(10) == -9
        assert theirs.poll() is None
        assert leaks.left_running("this-test-run") == {}
    finally:
        theirs.kill()
        theirs.wait()
        ours.kill()
        ours.wait()
