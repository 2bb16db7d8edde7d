"""The project's paths for @ completion: .gitignore honoured, built in a thread, cached."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_tui.tui.file_index import FileIndex, list_project, mention
from agent_tui.vocab.clock import ManualClock


def make(root: Path) -> None:
    for rel in ("src/app.py", "src/gen/out.py", "src/keep.log", "notes.log", "docs/a b.md", ".git/config"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "src" / ".gitignore").write_text("gen/\n!keep.log\n")


def test_a_walk_honours_every_folders_gitignore(tmp_path: Path) -> None:
    make(tmp_path)
    paths = list_project(tmp_path)
    assert "src/app.py" in paths and "docs/a b.md" in paths and "src/" in paths and "docs/" in paths
    assert "notes.log" not in paths and "src/gen/out.py" not in paths and "src/gen/" not in paths
    assert not any(p.startswith(".git/") for p in paths)


def test_in_a_git_work_tree_git_decides(tmp_path: Path) -> None:
    make(tmp_path)
    (tmp_path / ".git" / "config").unlink()
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    paths = list_project(tmp_path)
    assert {"src/app.py", "docs/a b.md", "src/keep.log", ".gitignore"} <= set(paths)
    assert "notes.log" not in paths and "src/gen/out.py" not in paths


async def test_the_list_is_cached_until_stale_and_then_refreshed(tmp_path: Path) -> None:
    calls: list[int] = []

    def lister(root: Path) -> list[str]:
        calls.append(1)
        return [f"file{len(calls)}.py"]

    clock = ManualClock()
    index = FileIndex(tmp_path, max_age_s=10, clock=clock, lister=lister)
    assert await index.search("file") == ["file1.py"]
    assert await index.search("file") == ["file1.py"] and len(calls) == 1
    clock.advance(11)
    assert await index.search("file") == ["file1.py"]  # answered from the stale list at once
    while index._building is not None:
        await index._building
    assert await index.search("file") == ["file2.py"]


def test_accepting_a_path_inserts_a_mention() -> None:
    assert mention("src/a.py") == "@src/a.py "
    assert mention("src/") == "@src/"
    assert mention("docs/a b.md") == '@"docs/a b.md" '
