"""apply_patch writes each file atomically: a failed write leaves the old file whole.

The failure is real: the tool runs in a subprocess whose file-size limit
(RLIMIT_FSIZE) is below the new content's size, with SIGXFSZ ignored so the
write raises EFBIG instead of killing the process.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.scope import ToolScope

from .conftest import error_message, invoke_tool, output_text

LIMIT = 4096

RUN_UNDER_LIMIT = """
import asyncio, json, resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.permissions import AllowAll
from agent_tui.tools.registry import ToolRegistry
work = Path(sys.argv[1])
registry = ToolRegistry(work)
registry.register(APPLY_PATCH)
scope = ToolScope(location=work, project_root=work, gate=AllowAll(), spill_dir=work.parent / "spill")
outcome = asyncio.run(registry.invoke("apply_patch", {{"patch": sys.stdin.read()}}, scope))
print(json.dumps({{"error": outcome.error.message if outcome.error else None}}))
"""


def _run_under_file_size_limit(work: Path, patch: str) -> str | None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", RUN_UNDER_LIMIT.format(limit=LIMIT), str(work)],
        input=patch,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)["error"]


def test_a_failed_write_leaves_the_old_file_intact_and_the_report_says_what_changed(workdir: Path) -> None:
    big = b"".join(b"line %05d of a file larger than the limit\r\n" % i for i in range(400))
    assert len(big) > LIMIT
    (workdir / "big.txt").write_bytes(big)
    (workdir / "later.txt").write_text("later\n")
    patch = "\n".join(
        [
            "*** Begin Patch",
            "*** Add File: small.txt",
            "+small",
            "*** Update File: big.txt",
            "-line 00200 of a file larger than the limit",
            "+changed",
            "*** Delete File: later.txt",
            "*** End Patch",
        ]
    )
    message = _run_under_file_size_limit(workdir, patch)
    assert (workdir / "big.txt").read_bytes() == big
    assert message == (
        "apply_patch failed: Update File big.txt: File too large; no file of this operation was changed\n"
        "These operations were already applied and were NOT rolled back:\nA small.txt\n"
        "Not attempted, left as they were:\nDelete File later.txt"
    )
    assert (workdir / "small.txt").read_bytes() == b"small\n"
    assert (workdir / "later.txt").read_bytes() == b"later\n"
    assert sorted(p.name for p in workdir.iterdir()) == [".git", "big.txt", "later.txt", "small.txt"]


def test_a_failed_first_write_says_nothing_else_was_applied(workdir: Path) -> None:
    big = b"x" * (LIMIT * 2) + b"\nlast\n"
    (workdir / "big.txt").write_bytes(big)
    patch = "*** Begin Patch\n*** Update File: big.txt\n-last\n+LAST\n*** End Patch"
    message = _run_under_file_size_limit(workdir, patch)
    assert (workdir / "big.txt").read_bytes() == big
    assert message == (
        "apply_patch failed: Update File big.txt: File too large; no file of this operation was changed\n"
        "No earlier operation had been applied."
    )
    assert sorted(p.name for p in workdir.iterdir()) == [".git", "big.txt"]


async def test_an_update_keeps_the_mode_and_a_new_file_gets_the_umask_mode(workdir: Path, scope: ToolScope) -> None:
    script = workdir / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o751)
    patch = "*** Begin Patch\n*** Update File: run.sh\n-echo old\n+echo new\n*** Add File: new.txt\n+n\n*** End Patch"
    output_text(await invoke_tool(APPLY_PATCH, scope, patch=patch))
    assert stat.S_IMODE(script.stat().st_mode) == 0o751
    umask = int(re.search(r"^Umask:\s*([0-7]+)", Path("/proc/self/status").read_text(), re.M).group(1), 8)  # type: ignore[union-attr]
    assert stat.S_IMODE((workdir / "new.txt").stat().st_mode) == 0o666 & ~umask
    assert script.read_text() == "#!/bin/sh\necho new\n"


async def test_an_update_through_a_symlink_keeps_the_link(workdir: Path, scope: ToolScope) -> None:
    (workdir / "real.txt").write_text("a\n")
    (workdir / "link.txt").symlink_to("real.txt")
    output_text(
        await invoke_tool(APPLY_PATCH, scope, patch="*** Begin Patch\n*** Update File: link.txt\n-a\n+b\n*** End Patch")
    )
    assert (workdir / "link.txt").is_symlink() and (workdir / "real.txt").read_text() == "b\n"


async def test_a_move_whose_source_cannot_be_removed_says_both_halves(
    workdir: Path, scope: ToolScope, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workdir / "a.txt").write_text("a\n")
    real_unlink = Path.unlink

    def refuse(self: Path, missing_ok: bool = False) -> None:
        if self.name == "a.txt":
            raise PermissionError(errno.EPERM, "Operation not permitted")
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", refuse)
    patch = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n-a\n+b\n*** Delete File: c.txt\n*** End Patch"
    (workdir / "c.txt").write_text("c\n")
    message = error_message(await invoke_tool(APPLY_PATCH, scope, patch=patch))
    assert message == (
        "apply_patch failed: Update File a.txt (move to b.txt): Operation not permitted; "
        "b.txt was written, but a.txt was not removed\n"
        "No earlier operation had been applied.\n"
        "Not attempted, left as they were:\nDelete File c.txt"
    )
    assert (workdir / "a.txt").read_text() == "a\n" and (workdir / "b.txt").read_text() == "b\n"
    assert (workdir / "c.txt").read_text() == "c\n"
