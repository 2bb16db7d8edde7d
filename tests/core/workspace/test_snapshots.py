"""The snapshot store: a private git dir per location, never the user's repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.settings import paths
from agent_tui.core.workspace.snapshots import FileChange, SnapshotError, WorkspaceSnapshots


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real user repository with a commit, a stash-free index and an ignored file."""
    where = tmp_path / "repo"
    where.mkdir()
    _git(where, "init", "-q", "-b", "main")
    _git(where, "config", "user.email", "t@example.com")
    _git(where, "config", "user.name", "t")
    (where / ".gitignore").write_text("*.log\n")
    (where / "tracked.txt").write_text("tracked\n")
    _git(where, "add", ".")
    _git(where, "commit", "-q", "-m", "first")
    (where / "untracked.txt").write_text("untracked\n")
    (where / "debug.log").write_text("ignored\n")
    return where


async def test_an_unchanged_tree_gives_the_same_snapshot(repo: Path) -> None:
    snaps = WorkspaceSnapshots()
    first = await snaps.take(repo)
    assert first == await snaps.take(repo)
    (repo / "untracked.txt").write_text("changed\n")
    assert await snaps.take(repo) != first


async def test_snapshots_never_touch_the_users_repository(repo: Path) -> None:
    # The index as entries (mode, object, path): its bytes also hold stat data that the test's own
    # `git status` refreshes after the restore rewrote tracked.txt (racy on a loaded machine).
    before = (
        _git(repo, "status", "--porcelain"),
        _git(repo, "stash", "list"),
        _git(repo, "branch", "--list"),
        _git(repo, "ls-files", "--stage"),
        _git(repo, "rev-parse", "HEAD"),
    )
    snaps = WorkspaceSnapshots()
    old = await snaps.take(repo)
    (repo / "tracked.txt").write_text("edited\n")
    await snaps.restore(repo, old)
    after = (
        _git(repo, "status", "--porcelain"),
        _git(repo, "stash", "list"),
        _git(repo, "branch", "--list"),
        _git(repo, "ls-files", "--stage"),
        _git(repo, "rev-parse", "HEAD"),
    )
    assert after == before
    assert snaps.git_dir(repo).is_relative_to(paths.data_dir())


async def test_restore_reports_each_file_and_leaves_ignored_files_alone(repo: Path) -> None:
    snaps = WorkspaceSnapshots()
    old = await snaps.take(repo)
    (repo / "tracked.txt").write_text("edited\n")
    (repo / "untracked.txt").unlink()
    (repo / "deep" / "er").mkdir(parents=True)
    (repo / "deep" / "er" / "new.txt").write_text("new\n")
    (repo / "debug.log").write_text("still ignored\n")
    before, changes = await snaps.restore(repo, old)
    assert sorted(changes, key=lambda c: c.path) == [
        FileChange("deep/er/new.txt", "deleted"),
        FileChange("tracked.txt", "modified"),
        FileChange("untracked.txt", "created"),
    ]
    assert (repo / "tracked.txt").read_text() == "tracked\n"
    assert (repo / "untracked.txt").read_text() == "untracked\n"
    assert not (repo / "deep").exists()
    assert (repo / "debug.log").read_text() == "still ignored\n"
    _, back = await snaps.restore(repo, before)  # the state before the restore comes back too
    assert (repo / "deep" / "er" / "new.txt").read_text() == "new\n" and len(back) == 3


async def test_the_data_dir_inside_the_location_is_not_snapshotted(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    location = tmp_path / "work"
    (location / "home").mkdir(parents=True)
    monkeypatch.setenv("AGENT_TUI_HOME", str(location / "home"))
    (location / "a.txt").write_text("a\n")
    snaps = WorkspaceSnapshots()
    first = await snaps.take(location)
    (location / "home" / "agent-tui.db").write_text("not a file of the user's\n")
    assert await snaps.take(location) == first


async def test_a_missing_snapshot_is_one_clear_error_and_changes_nothing(repo: Path) -> None:
    snaps = WorkspaceSnapshots()
    await snaps.take(repo)
    (repo / "tracked.txt").write_text("edited\n")
    with pytest.raises(SnapshotError, match="snapshot 0123456789abcdef0123456789abcdef01234567 is missing"):
        await snaps.restore(repo, "0123456789abcdef0123456789abcdef01234567")
    assert (repo / "tracked.txt").read_text() == "edited\n"


async def test_without_git_taking_a_snapshot_says_so(repo: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PATH", str(repo / "no-bin-here"))
    with pytest.raises(SnapshotError, match="git is not installed"):
        await WorkspaceSnapshots().take(repo)


async def test_a_store_folder_that_cannot_be_made_is_a_snapshot_error_naming_it(repo: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the snapshot store should go\n")
    with pytest.raises(
        SnapshotError, match=f"cannot set up the snapshot store {blocked}/.*: (File exists|Not a directory)"
    ):
        await WorkspaceSnapshots(root=blocked).take(repo)


@pytest.mark.parametrize("call_id", ["call:1", "toolu_01 ~^..x", "a.lock", "-x", "ça/va", "@{1}", "x" * 300])
async def test_a_call_id_git_would_refuse_as_a_ref_still_pins_its_snapshot(repo: Path, call_id: str) -> None:
    snaps = WorkspaceSnapshots()
    tree = await snaps.take(repo, pin=f"ses_1/msg_1-{call_id}")
    other = await snaps.take(repo, pin=f"ses_1/msg_1-{call_id}!")  # a near miss gets its own pin
    refs = _git(repo, f"--git-dir={snaps.git_dir(repo)}", "for-each-ref", "--format=%(objectname) %(refname)").split(
        "\n"
    )
    assert len([r for r in refs if r]) == 2 and all(r.startswith(tree) for r in refs if r) and other == tree
    assert await snaps.forget(repo, "ses_1") == 2


async def test_the_snapshot_store_is_private(repo: Path) -> None:
    import os
    import stat

    old = os.umask(0)
    try:
        snaps = WorkspaceSnapshots()
        await snaps.take(repo)
    finally:
        os.umask(old)
    assert stat.S_IMODE(snaps.git_dir(repo).parent.stat().st_mode) == 0o700
