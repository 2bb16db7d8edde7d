"""The project's files and folders for ``@`` completion, listed off the event loop and cached.

In a git work tree ``git ls-files`` lists them (tracked and untracked, with
every ``.gitignore``, ``.git/info/exclude`` and the global excludes honoured);
elsewhere a walk skips what each folder's ``.gitignore`` matches (``pathspec``
reads the patterns). Folders come from the files' parents, ending in ``/``.
The list is kept until it is older than ``max_age_s``; a stale list is still
answered from while a new one is made in a thread.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from agent_tui.tui.fuzzy import PathMatcher
from agent_tui.vocab.clock import Clock, SystemClock

MAX_ENTRIES = 500_000
"""A walk stops here (a home folder is no project); the list says nothing more."""


def mention(path: str) -> str:
    """What accepting ``path`` inserts: ``@path`` and a space (a folder, or a reference's ``NAME:``:
    no space, to go on into it)."""
    text = f'@"{path}"' if " " in path else f"@{path}"
    return text if path.endswith(("/", ":")) else text + " "


def _with_folders(files: list[str]) -> list[str]:
    folders: set[str] = set()
    for path in files:
        parent = PurePosixPath(path).parent
        while parent.name and f"{parent}/" not in folders:
            folders.add(f"{parent}/")
            parent = parent.parent
    return [*sorted(folders), *files]


def _git_files(root: Path) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard", "--deduplicate", "-z"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", errors="replace").split("\0")
    return [name for name in dict.fromkeys(names) if name]


def _walk_files(root: Path) -> list[str]:
    import pathspec

    files: list[str] = []
    specs: list[tuple[str, pathspec.PathSpec]] = []

    def ignored(rel: str) -> bool:
        for base, spec in specs:
            if (not base or rel.startswith(base + "/")) and spec.match_file(rel[len(base) + 1 :] if base else rel):
                return True
        return False

    for folder, dirs, names in os.walk(root):
        rel_dir = Path(folder).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        specs = [(b, s) for b, s in specs if not b or rel_dir == b or rel_dir.startswith(b + "/")]
        if ".gitignore" in names:
            try:
                lines = (Path(folder) / ".gitignore").read_text(errors="replace").splitlines()
                specs.append((rel_dir, pathspec.GitIgnoreSpec.from_lines(lines)))
            except OSError:
                pass
        prefix = f"{rel_dir}/" if rel_dir else ""
        dirs[:] = sorted(d for d in dirs if d != ".git" and not ignored(f"{prefix}{d}/"))
        files.extend(f"{prefix}{n}" for n in sorted(names) if not ignored(f"{prefix}{n}"))
        if len(files) >= MAX_ENTRIES:
            break
    return files


def list_project(root: Path) -> list[str]:
    """Blocking: every file and folder under ``root`` that git would not ignore."""
    files = _git_files(root) if (root / ".git").exists() else None
    return _with_folders(files if files is not None else _walk_files(root))


class FileIndex:
    """One project's paths and a matcher over them, rebuilt in a thread when stale."""

    def __init__(
        self,
        root: str | Path,
        *,
        max_age_s: float = 10.0,
        clock: Clock | None = None,
        lister: Callable[[Path], list[str]] = list_project,
    ) -> None:
        self.root = Path(root)
        self._max_age_ms = max_age_s * 1000
        self._clock = clock or SystemClock()
        self._lister = lister
        self._matcher: PathMatcher | None = None
        self._built_ms = 0
        self._building: asyncio.Task[PathMatcher] | None = None

    def _build(self) -> PathMatcher:
        return PathMatcher(self._lister(self.root))

    async def matcher(self) -> PathMatcher:
        """The matcher, waiting only when there is none yet; a stale one is refreshed behind it."""
        stale = self._matcher is None or self._clock.now_ms() - self._built_ms > self._max_age_ms
        if stale and self._building is None:
            self._building = asyncio.ensure_future(asyncio.to_thread(self._build))
            self._building.add_done_callback(self._built)
        if self._matcher is None:
            assert self._building is not None
            return await asyncio.shield(self._building)
        return self._matcher

    def _built(self, task: asyncio.Task[PathMatcher]) -> None:
        self._building = None
        if not task.cancelled() and task.exception() is None:
            self._matcher = task.result()
            self._built_ms = self._clock.now_ms()

    async def search(self, query: str, limit: int = 50) -> list[str]:
        """Ranked paths for ``query``, matched in a thread (the loop keeps painting)."""
        matcher = await self.matcher()
        return await asyncio.to_thread(matcher.search, query, limit)
