"""The kill-after-commit test seam: off unless set; set, the process dies right after commit N."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from agent_tui.core.store.crash_seam import ENV, kill_after_commit


def test_off_unless_the_environment_sets_it() -> None:
    assert kill_after_commit({}) is None
    assert kill_after_commit({ENV: " "}) is None
    with pytest.raises(ValueError, match=ENV):
        kill_after_commit({ENV: "0"})


CHILD = """
import asyncio, sys
from agent_tui.core.store.store import Store
from agent_tui.core.log import events as ev

async def main():
    store = await Store.open(sys.argv[1])
    await store.publish("ses_a", ev.SessionCreated(location="/tmp", project_root="/tmp"))
    for n in range(3):
        await store.publish("ses_a", ev.ContextPut(key=f"k{n}", value=n))
    print("survived", flush=True)
    await store.close()

asyncio.run(main())
"""


async def test_the_process_dies_right_after_its_nth_commit(tmp_path: Path) -> None:
    database = tmp_path / "seam.db"
    env = {**os.environ, ENV: "3"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CHILD, str(database), env=env, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == -signal.SIGKILL and b"survived" not in out
    conn = sqlite3.connect(database)
    try:
        kinds = [row[0] for row in conn.execute("SELECT type FROM event ORDER BY seq")]
    finally:
        conn.close()
    assert kinds == ["session.created.1", "session.context.put.1", "session.context.put.1"]
