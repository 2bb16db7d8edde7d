"""Replay a repository's history through apply_patch and count byte-identical trees.

For each of the last N first-parent commits of REPO: write the parent's tree
(regular files, raw blob bytes, no checkout filters) to a temporary directory,
turn the commit's diff into one ``*** Begin Patch`` text (Add / Delete /
Update, renames as Update + Move to, chunks with 3 lines of context and
``*** End of File`` at the end), apply it through ``ToolRegistry.invoke``
exactly as the runner calls the tool, and compare every file of the result
with the commit's tree by git blob id.

Each commit is one of:

- ``identical``: every file of the result is the commit's, byte for byte;
- ``differs``: the patch applied but some file differs (named with ``-v``);
- ``refused``: apply_patch refused the patch (its message with ``-v``);
- ``unrepresentable``: the change cannot be said in the patch format at all
  (a binary or non-UTF-8 file, a symlink or submodule, an added file without
  a final newline or with CRLF lines, a mode-only change); these are counted
  apart, by reason, and not applied;
- ``empty``: no file content changes.

Usage: ``python bench/patch_history.py REPO [N] [-v] [--out FILE]`` (N
defaults to 100). Prints the counts and writes them as JSON to FILE
(``bench/results/patch_history-<repo>.json`` by default); exits 1 when a
patch was refused or a tree differs.
Blocking on purpose: it is a script, not part of the app.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.permissions import AllowAll
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.scope import ToolScope

RESULTS = Path(__file__).resolve().parent / "results"
CONTEXT = 3
REGULAR = {"100644", "100755"}


class Unrepresentable(Exception):
    """The commit's change cannot be written as an apply_patch patch."""


@dataclass
class Git:
    repo: Path
    _batch: subprocess.Popen[bytes] | None = None

    def run(self, *args: str) -> bytes:
        return subprocess.run(["git", "-C", str(self.repo), *args], check=True, capture_output=True).stdout

    def blob(self, sha: str) -> bytes:
        """One blob's raw bytes through a long-lived ``cat-file --batch``."""
        if self._batch is None:
            self._batch = subprocess.Popen(
                ["git", "-C", str(self.repo), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
        assert self._batch.stdin is not None and self._batch.stdout is not None
        self._batch.stdin.write(sha.encode() + b"\n")
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().split()
        size = int(header[2])
        data = self._batch.stdout.read(size)
        self._batch.stdout.read(1)
        return data

    def tree(self, commit: str) -> dict[str, tuple[str, str]]:
        """path -> (mode, blob id) for every entry of the commit's tree."""
        out: dict[str, tuple[str, str]] = {}
        for entry in self.run("ls-tree", "-r", "-z", "--full-tree", commit).split(b"\0"):
            if entry:
                meta, path = entry.split(b"\t", 1)
                mode, _, sha = meta.decode().split()
                out[path.decode("utf-8", "surrogateescape")] = (mode, sha)
        return out

    def close(self) -> None:
        if self._batch is not None:
            assert self._batch.stdin is not None
            self._batch.stdin.close()
            self._batch.wait()


@dataclass
class Change:
    status: str
    old_path: str | None
    new_path: str | None
    old_mode: str
    new_mode: str
    old_sha: str
    new_sha: str


def changes(git: Git, parent: str, commit: str) -> list[Change]:
    raw = git.run("diff-tree", "-r", "-z", "-M", "--raw", "--no-commit-id", parent, commit).split(b"\0")
    out: list[Change] = []
    i = 0
    while i < len(raw) - 1:
        old_mode, new_mode, old_sha, new_sha, status = raw[i].decode().lstrip(":").split()
        if status[0] in "RC":
            paths = [raw[i + 1].decode("utf-8", "surrogateescape"), raw[i + 2].decode("utf-8", "surrogateescape")]
            i += 3
        else:
            paths = [raw[i + 1].decode("utf-8", "surrogateescape")] * 2
            i += 2
        old_path = None if status == "A" else paths[0]
        new_path = None if status == "D" else paths[1]
        out.append(Change(status[0], old_path, new_path, old_mode, new_mode, old_sha, new_sha))
    return out


@dataclass
class Lines:
    """A file cut at "\\n" only (the patch format's lines), kept apart from the code under test
    so the bench can replay the same patches through an older apply_patch."""

    lines: list[str]
    eols: list[str]
    bom: bool


def _text(data: bytes, path: str) -> Lines:
    if b"\0" in data:
        raise Unrepresentable("binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unrepresentable("non-UTF-8 file") from None
    bom = text.startswith("\ufeff")
    pieces = text.removeprefix("\ufeff").split("\n")
    tail = pieces.pop()
    lines = [p.removesuffix("\r") for p in pieces] + ([tail] if tail else [])
    eols = ["\r\n" if p.endswith("\r") else "\n" for p in pieces] + ([""] if tail else [])
    return Lines(lines, eols, bom)


def _add(path: str, data: bytes) -> list[str]:
    file = _text(data, path)
    if file.bom:
        raise Unrepresentable("added file with a BOM")
    if data and not data.endswith(b"\n"):
        raise Unrepresentable("added file without a final newline")
    if "\r\n" in file.eols:
        raise Unrepresentable("added file with CRLF lines")
    return [f"*** Add File: {path}", *(f"+{line}" for line in file.lines)]


def _update(path: str, move_to: str | None, old: bytes, new: bytes) -> list[str]:
    before, after = _text(old, path), _text(new, path)
    if before.bom != after.bom:
        raise Unrepresentable("BOM added or removed")
    a = [line + eol for line, eol in zip(before.lines, before.eols, strict=True)]
    b = [line + eol for line, eol in zip(after.lines, after.eols, strict=True)]
    header = [f"*** Update File: {path}", *([f"*** Move to: {move_to}"] if move_to else [])]
    if a == b:
        if not a:
            raise Unrepresentable("empty file renamed")
        return [*header, "@@", f" {before.lines[0]}"]  # a pure rename: one context line, nothing changed
    body = list(header)
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        body.append("@@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                body += [f" {line}" for line in before.lines[i1:i2]]
            if tag in ("delete", "replace"):
                body += [f"-{line}" for line in before.lines[i1:i2]]
            if tag in ("insert", "replace"):
                body += [f"+{line}" for line in after.lines[j1:j2]]
        if group[-1][2] == len(a):
            body.append("*** End of File")
    return body


def patch_for(git: Git, parent: str, commit: str) -> str | None:
    """The commit's change as one patch, deletions first; None when no file content changed."""
    deletes: list[str] = []
    rest: list[str] = []
    for change in changes(git, parent, commit):
        modes = {change.old_mode, change.new_mode} - {"000000"}
        if not modes <= REGULAR:
            raise Unrepresentable("symlink or submodule")
        match change.status:
            case "A":
                rest += _add(change.new_path, git.blob(change.new_sha))  # type: ignore[arg-type]
            case "D":
                deletes.append(f"*** Delete File: {change.old_path}")
            case "M" | "R" | "T":
                if change.old_sha == change.new_sha and change.status in "MT":
                    raise Unrepresentable("mode-only change")
                move_to = change.new_path if change.new_path != change.old_path else None
                rest += _update(change.old_path, move_to, git.blob(change.old_sha), git.blob(change.new_sha))  # type: ignore[arg-type]
            case "C":
                rest += _add(change.new_path, git.blob(change.new_sha))  # type: ignore[arg-type]
            case other:
                raise Unrepresentable(f"diff status {other}")
    if not deletes and not rest:
        return None
    return "\n".join(["*** Begin Patch", *deletes, *rest, "*** End Patch"]) + "\n"


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def materialise(git: Git, tree: dict[str, tuple[str, str]], root: Path) -> None:
    for path, (mode, sha) in tree.items():
        if mode in REGULAR:
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(git.blob(sha))


def differences(root: Path, tree: dict[str, tuple[str, str]]) -> list[str]:
    want = {path: sha for path, (mode, sha) in tree.items() if mode in REGULAR}
    have = {p.relative_to(root).as_posix(): blob_id(p.read_bytes()) for p in root.rglob("*") if p.is_file()}
    return sorted(path for path in want.keys() | have.keys() if want.get(path) != have.get(path))


async def apply_in(root: Path, patch: str) -> str | None:
    registry = ToolRegistry(root)
    registry.register(APPLY_PATCH)
    scope = ToolScope(location=root, project_root=root, gate=AllowAll(), spill_dir=root.parent / "spill")
    outcome = await registry.invoke("apply_patch", {"patch": patch}, scope)
    return outcome.error.message if outcome.error is not None else None


@dataclass
class Tally:
    outcomes: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    details: list[dict[str, object]] = field(default_factory=list)
    apply_seconds: float = 0.0


def replay(git: Git, commit: str, tally: Tally) -> dict[str, object]:
    parents = git.run("rev-list", "--parents", "-n", "1", commit).split()
    if len(parents) < 2:
        return {"commit": commit, "outcome": "empty", "why": "root commit"}
    parent = parents[1].decode()
    try:
        patch = patch_for(git, parent, commit)
    except Unrepresentable as why:
        tally.reasons[str(why)] += 1
        return {"commit": commit, "outcome": "unrepresentable", "why": str(why)}
    if patch is None:
        return {"commit": commit, "outcome": "empty"}
    with tempfile.TemporaryDirectory(prefix="patch-history-") as name:
        root = Path(name) / "tree"
        root.mkdir()
        materialise(git, git.tree(parent), root)
        started = time.perf_counter()
        error = asyncio.run(apply_in(root, patch))
        tally.apply_seconds += time.perf_counter() - started
        if error is not None:
            return {"commit": commit, "outcome": "refused", "why": error, "patch_lines": patch.count("\n")}
        diff = differences(root, git.tree(commit))
    outcome = "identical" if not diff else "differs"
    return {"commit": commit, "outcome": outcome, "files": diff, "patch_lines": patch.count("\n")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("n", type=int, nargs="?", default=100)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument(
        "--out", type=Path, help="where to write the JSON (default bench/results/patch_history-<repo>.json)"
    )
    args = parser.parse_args(argv)
    git = Git(args.repo)
    commits = git.run("rev-list", "--first-parent", "-n", str(args.n), "HEAD").decode().split()
    tally = Tally()
    try:
        for commit in commits:
            result = replay(git, commit, tally)
            tally.outcomes[str(result["outcome"])] += 1
            tally.details.append(result)
            if args.verbose and result["outcome"] not in ("identical", "empty"):
                print(json.dumps(result, ensure_ascii=False)[:2000])
    finally:
        git.close()
    applied = tally.outcomes["identical"] + tally.outcomes["differs"] + tally.outcomes["refused"]
    print(f"{args.repo}: last {len(commits)} first-parent commits")
    print(f"  byte-identical trees: {tally.outcomes['identical']} of {applied} applied patches")
    print(
        f"  differs: {tally.outcomes['differs']}, refused: {tally.outcomes['refused']}, "
        f"unrepresentable: {tally.outcomes['unrepresentable']}, empty: {tally.outcomes['empty']}"
    )
    for reason, count in tally.reasons.most_common():
        print(f"    unrepresentable, {reason}: {count}")
    print(f"  time in apply_patch: {tally.apply_seconds:.2f} s")
    name = os.path.basename(os.path.abspath(args.repo).rstrip("/")) or "repo"
    out = args.out or RESULTS / f"patch_history-{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "repo": str(args.repo),
                "n": len(commits),
                "outcomes": tally.outcomes,
                "unrepresentable": tally.reasons,
                "commits": tally.details,
            },
            indent=2,
        )
    )
    print(f"  wrote {out}")
    return 0 if tally.outcomes["differs"] == 0 and tally.outcomes["refused"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
