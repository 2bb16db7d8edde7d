"""``agent-tui sandbox -- CMD``: the installed command runs a line under the policy the agent's
``bash`` has here (real bubblewrap), and runs nothing where it cannot confine it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.tools.sandbox import bwrap_path, unavailable_reason

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason=f"no sandbox here: {unavailable_reason()}")


def sandbox(
    workdir: Path, *words: str, path: str | None = None, temp: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENT_TUI_NO_WARM": "1"}
    if path is not None:
        env["PATH"] = path
    if temp is not None:  # the system temp dir (writable in the sandbox), away from the test's folders
        temp.mkdir()
        env["TMPDIR"] = str(temp)
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", "sandbox", *words],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@needs_bwrap
def test_the_default_policy_writes_in_the_project_and_nowhere_else(workdir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    done = sandbox(workdir, "--", f"echo in > in.txt; echo out > {outside}; exit 7", temp=tmp_path / "system-tmp")
    assert done.returncode == 7  # the command's own code
    assert (workdir / "in.txt").read_text() == "in\n" and not outside.exists()
    assert "sandbox for build: workspace-write" in done.stderr and "network off" in done.stderr


@needs_bwrap
def test_the_plan_agent_policy_reads_but_cannot_write(workdir: Path) -> None:
    (workdir / "notes.txt").write_text("notes\n")
    done = sandbox(workdir, "--agent", "plan", "--", "cat", "notes.txt")
    assert (done.returncode, done.stdout) == (0, "notes\n")
    done = sandbox(workdir, "--agent", "plan", "--", "touch", "new.txt")
    assert done.returncode != 0 and not (workdir / "new.txt").exists()
    assert "read-only" in done.stderr


def test_without_bwrap_nothing_runs_and_it_says_why(workdir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "bash").symlink_to("/bin/bash")  # a PATH with a shell but no bubblewrap
    done = sandbox(workdir, "--", "touch made.txt", path=str(folder))
    assert done.returncode == 3 and not (workdir / "made.txt").exists()
    assert "not run: bubblewrap (bwrap) is not installed" in done.stderr


def test_full_access_runs_unconfined_and_says_so(workdir: Path, agent_home: Path, tmp_path: Path) -> None:
    (agent_home / "config.toml").write_text('[sandbox]\nmode = "full-access"\n')
    outside = tmp_path / "outside.txt"
    done = sandbox(workdir, "--", f"echo out > {outside}")
    assert done.returncode == 0 and outside.read_text() == "out\n"
    assert "full-access: not confined" in done.stderr


@pytest.mark.parametrize(
    ("words", "message"), [(["--"], "name a command"), (["--agent", "ghost", "--", "true"], "unknown agent 'ghost'")]
)
def test_usage_mistakes_are_named(workdir: Path, words: list[str], message: str) -> None:
    done = sandbox(workdir, *words)
    assert done.returncode != 0 and message in done.stderr


@needs_bwrap
def test_only_the_leading_double_dash_is_agent_tuis(workdir: Path) -> None:
    done = sandbox(workdir, "--", "printf", "%s,", "a", "--", "b")
    assert (done.returncode, done.stdout) == (0, "a,--,b,")
