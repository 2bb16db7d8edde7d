"""The fallback without git: the files an ``apply_patch`` call is about to touch, as they were.

Before each ``apply_patch`` call the paths its patch names (added, updated,
moved, deleted) are copied into ``<data dir>/snapshots/preimages/<id>/`` with a
manifest (``None`` for a file that did not exist). Restoring several
pre-images takes, per path, the earliest one, so the files come back to what
they were before the first of those calls. What ``bash`` changed is not
covered: the session says so once.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

from agent_tui.core.log import ids
from agent_tui.core.settings import paths
from agent_tui.core.workspace.snapshots import FileChange, SnapshotError

PREFIX = "pre:"
"""Snapshot ids of this kind start with it (the git kind is a bare tree id)."""


def patch_paths(patch: str) -> list[str]:
    """The paths a patch names; an unparsable patch names none (apply_patch will refuse it)."""
    from agent_tui.tools.apply_patch.parser import AddFile, DeleteFile, PatchError, UpdateFile, parse_patch

    try:
        operations = parse_patch(patch)
    except PatchError:
        return []
    out: list[str] = []
    for op in operations:
        match op:
            case AddFile(path=path) | DeleteFile(path=path):
                out.append(path)
            case UpdateFile(path=path, move_to=move_to):
                out.extend([path, move_to] if move_to else [path])
    return list(dict.fromkeys(out))


class PreimageStore:
    def __init__(self, root: Path | None = None) -> None:
        self._root = root or paths.data_dir() / "snapshots" / "preimages"

    async def record(self, location: Path, names: list[str]) -> str:
        return await asyncio.to_thread(self._record, location, names)

    def _record(self, location: Path, names: list[str]) -> str:
        key = ids.message_id().removeprefix("msg_")
        folder = self._root / key
        folder.mkdir(parents=True, exist_ok=True)
        manifest: dict[str, str | None] = {}
        for n, name in enumerate(_inside(location, names)):
            source = location / name
            if source.is_file():
                shutil.copy2(source, folder / f"{n}.blob")
                manifest[name] = f"{n}.blob"
            else:
                manifest[name] = None
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        return PREFIX + key

    async def forget(self, snapshots: list[str]) -> None:
        """Remove the pre-images of a deleted session."""
        for snapshot in snapshots:
            await asyncio.to_thread(shutil.rmtree, self._root / snapshot.removeprefix(PREFIX), True)

    def _manifest(self, snapshot: str) -> tuple[Path, dict[str, str | None]]:
        folder = self._root / snapshot.removeprefix(PREFIX)
        try:
            return folder, json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise SnapshotError(f"pre-image {snapshot} is missing or corrupt in {self._root}") from None

    def _earliest(self, snapshots: list[str]) -> dict[str, Path | None]:
        wanted: dict[str, Path | None] = {}
        for snapshot in snapshots:
            folder, manifest = self._manifest(snapshot)
            for name, blob in manifest.items():
                wanted.setdefault(name, None if blob is None else folder / blob)
        return wanted

    async def changes(self, location: Path, snapshots: list[str]) -> list[FileChange]:
        return await asyncio.to_thread(lambda: _compare(location, self._earliest(snapshots)))

    async def restore(self, location: Path, snapshots: list[str]) -> tuple[str, list[FileChange]]:
        """Put back the earliest pre-image of each path; returns (a pre-image of what it replaced, changes)."""
        wanted = await asyncio.to_thread(self._earliest, snapshots)
        before = await self.record(location, list(wanted))
        return before, await asyncio.to_thread(_write, location, wanted)


def _inside(location: Path, names: list[str]) -> list[str]:
    out = []
    for name in names:
        try:
            out.append((location / name).resolve().relative_to(location.resolve()).as_posix())
        except ValueError:
            continue  # outside the location: not the location's files
    return out


def _compare(location: Path, wanted: dict[str, Path | None]) -> list[FileChange]:
    changes = []
    for name, blob in wanted.items():
        target = location / name
        if blob is None:
            if target.exists():
                changes.append(FileChange(name, "deleted"))
        elif not target.is_file():
            changes.append(FileChange(name, "created"))
        elif target.read_bytes() != blob.read_bytes():
            changes.append(FileChange(name, "modified"))
    return changes


def _write(location: Path, wanted: dict[str, Path | None]) -> list[FileChange]:
    changes = _compare(location, wanted)
    for change in changes:
        target, blob = location / change.path, wanted[change.path]
        if blob is None:
            os.unlink(target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(blob, target)
    return changes
