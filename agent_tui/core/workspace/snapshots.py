"""Workspace snapshots in agent-tui's own object store (a private git dir per location).

A snapshot is the id of a git *tree* holding every file of the location that
git would track — tracked and untracked alike, ``.gitignore`` honoured — written
by ``git --git-dir=<data dir>/snapshots/<key>.git --work-tree=<location>``.
The user's ``.git``, index, stash and branches are never read or written: the
private dir has its own index, so an unchanged tree costs one stat pass
(``add -A`` reuses the index's stat cache) and a ``write-tree``.

Restoring reads the target tree into the private index with ``read-tree
--reset -u`` after a fresh snapshot of the present, so git rewrites only the
files that differ and removes the ones the target lacks; ignored files are
never in either tree and so are never touched.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.errors import StoreError
from agent_tui.core.settings import paths
from agent_tui.tools.private_files import private_dir

_CONFIG = (
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.safecrlf=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotepath=false",
    "-c",
    "gc.auto=0",
    "-c",
    "core.hooksPath=/dev/null",
)
_GIT_ENV_DROP = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
)
_CHANGE = {"A": "created", "D": "deleted", "M": "modified", "T": "modified"}


class SnapshotError(StoreError):
    """The snapshot store cannot do what was asked; the message says why, in one line."""


@dataclass(frozen=True)
class FileChange:
    """One file a restore changed: ``created``, ``modified`` or ``deleted`` (relative to the location)."""

    path: str
    change: str


def git_available() -> bool:
    return shutil.which("git") is not None


_REF_SAFE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


def _ref_part(text: str) -> str:
    """One path component of a ref git accepts, whatever the text: a call id comes from the
    provider (or a model) and may hold ``:``, ``~``, ``..``, spaces or ``.lock``. Text git
    would refuse (or a name too long for a file) becomes its safe characters plus a hash of the
    whole, so two ids never meet."""
    if len(text) <= 96 and _REF_SAFE.fullmatch(text):
        return text
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", text)[:80]
    return f"{safe}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def pin_ref(pin: str) -> str:
    """``<session>/<name>`` as the ref that keeps a snapshot reachable."""
    session, _, name = pin.partition("/")
    return f"refs/agent-tui/{_ref_part(session)}/{_ref_part(name)}"


def store_dir() -> Path:
    return paths.data_dir() / "snapshots"


class WorkspaceSnapshots:
    """Take, compare and restore snapshots; one lock per location inside this process."""

    def __init__(self, root: Path | None = None) -> None:
        self._root = root or store_dir()
        self._locks: dict[str, asyncio.Lock] = {}

    def git_dir(self, location: Path) -> Path:
        key = hashlib.sha256(str(location).encode()).hexdigest()[:20]
        return self._root / f"{key}.git"

    def _lock(self, location: Path) -> asyncio.Lock:
        return self._locks.setdefault(str(location), asyncio.Lock())

    async def take(self, location: Path, pin: str | None = None) -> str:
        """Snapshot the location now; returns the tree id. ``pin`` (``<session>/<name>``) keeps it
        reachable under ``refs/agent-tui/`` until :meth:`forget` drops the session's pins."""
        async with self._lock(location):
            return await self._take(location, pin)

    async def _take(self, location: Path, pin: str | None) -> str:
        await self._ensure(location)
        await self._git(location, "add", "-A", "--ignore-errors", "--", ".", ok=(0, 1))
        tree = (await self._git(location, "write-tree")).strip()
        if pin is not None:
            await self._git(location, "update-ref", pin_ref(pin), tree)
        return tree

    async def forget(self, location: Path, session_id: str) -> int:
        """Drop a deleted session's snapshots: its pins, then every object no pin reaches; returns pins dropped."""
        if not (self.git_dir(location) / "HEAD").is_file():
            return 0
        async with self._lock(location):
            refs = (
                await self._git(
                    location, "for-each-ref", "--format=%(refname)", f"refs/agent-tui/{_ref_part(session_id)}/"
                )
            ).split()
            for ref in refs:
                await self._git(location, "update-ref", "-d", ref)
            await self._git(location, "prune", "--expire=now")
            return len(refs)

    async def exists(self, location: Path, snapshot: str) -> bool:
        if not self.git_dir(location).is_dir():
            return False
        try:
            await self._git(location, "cat-file", "-e", f"{snapshot}^{{tree}}")
        except SnapshotError:
            return False
        return True

    async def diff(self, location: Path, old: str, new: str) -> list[FileChange]:
        """What turning ``old`` into ``new`` changes, file by file."""
        out = await self._git(location, "diff-tree", "-r", "-z", "--no-renames", "--name-status", old, new)
        fields = [f for f in out.split("\0") if f]
        return [
            FileChange(path=fields[i + 1], change=_CHANGE.get(fields[i][0], "modified"))
            for i in range(0, len(fields) - 1, 2)
        ]

    async def patch(self, location: Path, old: str, new: str, limit: int = 200_000) -> str:
        """The unified diff from ``old`` to ``new`` (binary files named, not shown), cut at ``limit`` characters."""
        out = await self._git(location, "diff-tree", "-r", "-p", "--no-renames", "--no-color", old, new)
        return out if len(out) <= limit else out[:limit] + "\n… (diff cut)\n"

    async def restore(self, location: Path, snapshot: str, pin: str | None = None) -> tuple[str, list[FileChange]]:
        """Bring the location back to ``snapshot``; returns (snapshot of the state before, what changed).
        ``pin`` keeps the state before (what an undo restores)."""
        async with self._lock(location):
            await self.check(location, snapshot)
            before = await self._take(location, pin)
            changes = await self.diff(location, before, snapshot)
            if changes:
                await self._git(location, "read-tree", "--reset", "-u", snapshot)
            return before, changes

    async def check(self, location: Path, snapshot: str) -> None:
        if not await self.exists(location, snapshot):
            raise SnapshotError(f"snapshot {snapshot} is missing from the snapshot store {self.git_dir(location)}")

    async def _ensure(self, location: Path) -> None:
        git_dir = self.git_dir(location)
        if (git_dir / "HEAD").is_file():
            return
        if not git_available():
            raise SnapshotError("git is not installed; workspace snapshots need it")
        try:
            await asyncio.to_thread(private_dir, git_dir.parent)  # file contents: the user's only
            await _run(["git", "init", "-q", "--bare", str(git_dir)], location, name="init")
            await asyncio.to_thread(_write_excludes, git_dir, location, paths.data_dir())
        except OSError as error:  # a file where the store's folder should be, no space, no permission
            raise SnapshotError(f"cannot set up the snapshot store {git_dir}: {error.strerror or error}") from None

    async def _git(self, location: Path, *args: str, ok: tuple[int, ...] = (0,)) -> str:
        command = ["git", f"--git-dir={self.git_dir(location)}", f"--work-tree={location}", *_CONFIG, *args]
        return await _run(command, location, ok, name=args[0])


def _write_excludes(git_dir: Path, location: Path, data_dir: Path) -> None:
    """Keep agent-tui's own data out of the snapshots when it lives inside the location."""
    lines = ["# agent-tui: never snapshot its own data"]
    try:
        inside = data_dir.resolve().relative_to(location.resolve())
    except ValueError:
        inside = None
    if inside is not None and str(inside) != ".":
        lines.append(f"/{inside.as_posix()}/")
    info = git_dir / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "exclude").write_text("\n".join(lines) + "\n", encoding="utf-8")


async def _run(command: list[str], cwd: Path, ok: tuple[int, ...] = (0,), *, name: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROP}
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except FileNotFoundError:
        raise SnapshotError("git is not installed; workspace snapshots need it") from None
    except NotADirectoryError:
        raise SnapshotError(f"location {cwd} is not a directory") from None
    out, err = await process.communicate()
    if process.returncode not in ok:
        reason = err.decode(errors="replace").strip().splitlines()
        raise SnapshotError(f"git {name} failed: {reason[-1] if reason else f'exit {process.returncode}'}")
    return out.decode(errors="surrogateescape")
