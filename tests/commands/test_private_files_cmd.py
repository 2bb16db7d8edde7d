"""After a real run (a snapshot taken, a long output spilled), everything agent-tui stored for the
user is readable by the user only, even under the widest umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider
from tests.commands.test_run_cmd import Cli, session_of
from tests.warmth import LaunchMode


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_run_leaves_nothing_others_can_read(
    fake: FakeProvider, workdir: Path, agent_home: Path, runtime_dir: Path
) -> None:
    fake.add(
        {"tool_calls": [{"id": "call:1 ~x", "name": "bash", "arguments": {"command": "seq 1 100000"}}]},
        {"text": "counted"},
    )
    cli = Cli(fake, workdir, agent_home, LaunchMode("in-process", runtime_dir))
    old = os.umask(0)
    try:
        proc = await cli.start("run", *cli.model_flags(), "--permission", "allow", "count")
    finally:
        os.umask(old)
    try:
        out, err = await proc.communicate(b"")
        assert proc.returncode == 0, err.decode()
        log = await cli.log(session_of(err.decode()))
    finally:
        await cli.close()
    taken = [e["data"] for e in log if e["type"] == "session.snapshot.taken.1"]
    assert len(taken) == 1 and taken[0]["snapshot_id"]  # a call id git refuses as a ref still pins one
    spilled = list((agent_home / "spill").iterdir())
    snapshots = agent_home / "snapshots"
    assert spilled and list(snapshots.iterdir())  # the run spilled its output and took a snapshot
    assert mode(agent_home / "spill") == 0o700 and all(mode(f) == 0o600 for f in spilled)
    assert mode(snapshots) == 0o700
    assert mode(agent_home / "agent-tui.db") == 0o600


async def test_each_call_a_failing_snapshot_leaves_uncovered_says_so_before_it_runs(
    fake: FakeProvider, workdir: Path, agent_home: Path, runtime_dir: Path
) -> None:
    (agent_home / "snapshots").write_text("a file where the snapshot store should be")
    fake.add(
        {
            "tool_calls": [
                {"id": "c1", "name": "bash", "arguments": {"command": "echo one > one.txt"}},
                {"id": "c2", "name": "bash", "arguments": {"command": "echo two > two.txt"}},
            ]
        },
        {"text": "written"},
    )
    cli = Cli(fake, workdir, agent_home, LaunchMode("in-process", runtime_dir))
    try:
        code, out, err = await cli.run("--permission", "allow", "write")
        log = await cli.log(session_of(err))
    finally:
        await cli.close()
    assert code == 0, err
    lines = [line for line in err.splitlines() if "no snapshot before call" in line]
    assert len(lines) == 2 and "cannot set up the snapshot store" in lines[0]
    kinds = [(e["type"], e["data"].get("call_id")) for e in log]
    for call in ("c1", "c2"):  # the reason is in the log before the call's settlement
        assert kinds.index(("session.snapshot.taken.1", call)) < kinds.index(("session.tool.success.1", call))
