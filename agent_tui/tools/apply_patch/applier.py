"""Resolve, verify, then apply a parsed patch in order.

Every target is resolved before anything is asked or written. Verification
replays the operations in order against the files as they would be (so an
Add followed by an Update of the same file works) and computes every new
file content. When verification fails, nothing is written: the spec
(reference 001, "Current Tool Registry Slice") preflights every target
before committing, so a patch whose update target is missing changes no
file (where this project departs from upstream Codex's scenario 015). Only
a failure while writing leaves the earlier operations applied, and the
report then says exactly which were applied and which were not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.tools.apply_patch.atomic import write_atomically
from agent_tui.tools.apply_patch.parser import AddFile, DeleteFile, Operation, UpdateFile
from agent_tui.tools.apply_patch.textfile import ApplyError, TextFile, apply_chunks
from agent_tui.tools.errors import ToolError
from agent_tui.tools.paths import is_inside, lexical_rel


@dataclass(frozen=True)
class Target:
    path: Path
    """Canonical absolute path (for a deleted symlink: the link itself)."""
    shown: str
    """Location-relative POSIX path, or the absolute path when outside the location."""
    outside: bool
    is_link: bool = False


def resolve_target(root: Path, raw: str, *, deleting: bool = False) -> Target:
    """Relative paths must stay inside (no ``..`` or symlink escapes); absolute
    paths may point outside and then need ``external_directory`` permission.
    Deleting a symlink removes the link, wherever it points."""
    named = Path(os.path.normpath(raw)) if os.path.isabs(raw) else root / lexical_rel(raw)
    if deleting and named.is_symlink():
        parent = Path(os.path.realpath(named.parent))
        named = parent / named.name
    else:
        named = Path(os.path.realpath(named))
        if not os.path.isabs(raw) and not is_inside(named, root):
            raise ToolError(
                f"The path {raw!r} goes through a symlink to {named}, which is outside the session location."
            )
    link = deleting and named.is_symlink()
    if is_inside(named, root):
        return Target(named, named.relative_to(root).as_posix() if named != root else ".", False, link)
    if not os.path.isabs(raw):
        raise ToolError(f"The path {raw!r} goes through a symlink to {named}, which is outside the session location.")
    return Target(named, named.as_posix(), True, link)


@dataclass
class Step:
    """One verified operation, ready to write."""

    letter: str
    shown: str
    describe: str
    write: Path | None = None
    content: bytes | None = None
    remove: Path | None = None
    source: str = ""
    """A move's source as shown (``remove``), for a report that names what was left."""
    added: int = 0
    removed: int = 0


@dataclass
class Plan:
    operations: list[Operation]
    targets: list[tuple[Target, Target | None]]
    steps: list[Step] = field(default_factory=list)
    failure: str | None = None
    """Why operation ``len(steps)`` cannot be applied (verification stopped there)."""

    def edit_resources(self) -> list[str]:
        shown = [t.shown for pair in self.targets for t in pair if t is not None]
        return list(dict.fromkeys(shown))

    def not_attempted(self, applied: int) -> list[str]:
        """The operations after the one that failed while writing, which were left as they were."""
        return [_describe(op) for op in self.operations[applied + 1 :]]

    def outside_directories(self) -> list[str]:
        dirs = [t.path.parent.as_posix() for pair in self.targets for t in pair if t is not None and t.outside]
        return list(dict.fromkeys(dirs))


def _describe(operation: Operation) -> str:
    match operation:
        case AddFile(path=path):
            return f"Add File {path}"
        case DeleteFile(path=path):
            return f"Delete File {path}"
        case UpdateFile(path=path, move_to=None):
            return f"Update File {path}"
        case UpdateFile(path=path, move_to=dest):
            return f"Update File {path} (move to {dest})"
    raise AssertionError(operation)


def resolve(root: Path, operations: list[Operation]) -> Plan:
    targets: list[tuple[Target, Target | None]] = []
    for operation in operations:
        dest = operation.move_to if isinstance(operation, UpdateFile) else None
        deleting = isinstance(operation, DeleteFile)
        targets.append(
            (resolve_target(root, operation.path, deleting=deleting), resolve_target(root, dest) if dest else None)
        )
    return Plan(operations, targets)


class _Tree:
    """The tree as the earlier operations of the patch leave it.

    Files written or removed, and the directories a write would create, are
    recorded; anything else is looked up on disk. So an operation is judged
    against a file an earlier one added, moved away or deleted, and a
    directory an earlier one made, exactly as the writes will find them.
    """

    def __init__(self) -> None:
        self._files: dict[Path, bytes | None] = {}
        self._dirs: set[Path] = set()

    def is_dir(self, path: Path) -> bool:
        return path in self._dirs or (path not in self._files and path.is_dir())

    def _is_file(self, path: Path) -> bool:
        if path in self._files:
            return self._files[path] is not None
        return path not in self._dirs and (path.exists() or path.is_symlink())

    def read(self, path: Path, shown: str, verb: str) -> bytes:
        if path in self._files:
            data = self._files[path]
            if data is None:
                raise ApplyError(f"Failed to {verb} {shown}: an earlier operation of this patch deletes it")
            return data
        if self.is_dir(path):
            raise ApplyError(f"Failed to {verb} {shown}: it is a directory, not a file")
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise ApplyError(f"Failed to {verb} {shown}: no such file") from None
        except OSError as error:
            raise ApplyError(f"Failed to {verb} {shown}: {error.strerror}") from None

    def write(self, path: Path, shown: str, verb: str, data: bytes) -> None:
        """Record a write, after checking that it can happen: not onto a directory, and every
        ancestor a directory or creatable as one."""
        if self.is_dir(path):
            raise ApplyError(f"Failed to {verb} {shown}: it is a directory")
        missing = []
        for parent in path.parents:
            if self.is_dir(parent):
                break
            if self._is_file(parent):
                raise ApplyError(f"Failed to write {shown}: {parent} is not a directory")
            missing.append(parent)
        self._dirs.update(missing)
        self._files[path] = data

    def remove(self, path: Path) -> None:
        self._files[path] = None


def verify(plan: Plan) -> Plan:
    tree = _Tree()
    for operation, (target, dest) in zip(plan.operations, plan.targets, strict=True):
        try:
            plan.steps.append(_verify_one(operation, target, dest, tree))
        except ApplyError as error:
            plan.failure = str(error)
            break
    return plan


def _verify_one(operation: Operation, target: Target, dest: Target | None, tree: _Tree) -> Step:
    describe = _describe(operation)
    match operation:
        case AddFile(contents=contents):
            data = contents.encode("utf-8")
            tree.write(target.path, target.shown, "add", data)
            return Step("A", target.shown, describe, write=target.path, content=data, added=contents.count("\n"))
        case DeleteFile() if target.is_link:
            tree.remove(target.path)
            return Step("D", target.shown, describe, remove=target.path)
        case DeleteFile():
            data = tree.read(target.path, target.shown, "delete")
            tree.remove(target.path)
            return Step("D", target.shown, describe, remove=target.path, removed=data.count(b"\n"))
        case UpdateFile(chunks=chunks):
            original = TextFile.parse(tree.read(target.path, target.shown, "update"), target.shown)
            data = apply_chunks(original, chunks, target.shown).dump()
            added = sum(c.added for c in chunks)
            removed = sum(c.removed for c in chunks)
            if dest is None or dest.path == target.path:
                tree.write(target.path, target.shown, "update", data)
                return Step("M", target.shown, describe, write=target.path, content=data, added=added, removed=removed)
            if tree.is_dir(dest.path):
                raise ApplyError(f"Failed to move {target.shown} to {dest.shown}: the destination is a directory")
            tree.write(dest.path, dest.shown, "move to", data)  # written before the source goes, as write_step does
            tree.remove(target.path)
            return Step(
                "M",
                dest.shown,
                describe,
                write=dest.path,
                content=data,
                remove=target.path,
                source=target.shown,
                added=added,
                removed=removed,
            )
    raise AssertionError(operation)


class StepFailed(Exception):
    """Writing one step failed; the message says what of it was and was not changed."""


def write_step(step: Step) -> None:
    """Write one step: the new content atomically first, then the removal (a move's source)."""
    if step.write is not None and step.content is not None:
        try:
            step.write.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(step.write, step.content)
        except OSError as error:
            raise StepFailed(f"{_reason(error)}; no file of this operation was changed") from error
    if step.remove is not None:
        try:
            step.remove.unlink()
        except OSError as error:
            if step.write is None:
                raise StepFailed(f"{_reason(error)}; {step.shown} was left as it was") from error
            raise StepFailed(
                f"{_reason(error)}; {step.shown} was written, but {step.source} was not removed"
            ) from error


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def apply(plan: Plan) -> tuple[list[Step], str | None]:
    """Write the verified steps in order; stop at the first failure.

    A failed verification writes nothing. Returns the steps applied and the
    failure (verification or write), if any.
    """
    if plan.failure is not None:
        return [], f"{_describe(plan.operations[len(plan.steps)])}: {plan.failure}"
    applied: list[Step] = []
    for step in plan.steps:
        try:
            write_step(step)
        except StepFailed as failure:
            return applied, f"{step.describe}: {failure}"
        applied.append(step)
    return applied, None
