"""The throwaway PostgreSQL server: runs unprivileged, answers on its socket, leaves nothing behind."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg

from agent_tui.testing import postgres_server


def test_a_server_starts_unprivileged_and_is_gone_after_the_block() -> None:
    with postgres_server.running() as server:
        with psycopg.connect(server.url()) as conn:
            row = conn.execute("SELECT current_setting('listen_addresses'), current_setting('fsync')").fetchone()
        assert row == ("", "off")  # no TCP listener; tests trade durability for speed
        status = Path(f"/proc/{server.process.pid}/status").read_text().splitlines()
        uid = next(line.split()[1] for line in status if line.startswith("Uid:"))
        assert int(uid) != 0 and (os.geteuid() == 0 or int(uid) == os.geteuid())
    assert server.process.returncode is not None
    assert not server.root.exists()
