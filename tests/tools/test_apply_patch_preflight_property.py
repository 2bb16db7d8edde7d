"""Preflight agrees with the filesystem, for any sequence of operations.

The oracle is the filesystem itself: the same operations done for real, in
order, with plain ``os`` calls (make the parents, write, then remove a move's
source) on a copy of the tree. If they all succeed, apply_patch must succeed
and leave the same tree; if one fails, apply_patch must refuse the patch and
write nothing. Either way it never fails halfway through its writes.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.tools.apply_patch.applier import apply, resolve, verify
from agent_tui.tools.apply_patch.parser import parse_patch

PATHS = ["a", "b", "a/x", "b/y", "a/x/z", "c/d"]


@dataclass(frozen=True)
class Op:
    kind: str
    path: str
    dest: str | None = None

    def lines(self) -> list[str]:
        match self.kind:
            case "add":
                return [f"*** Add File: {self.path}", "+x"]
            case "delete":
                return [f"*** Delete File: {self.path}"]
        move = [f"*** Move to: {self.dest}"] if self.dest else []
        return [f"*** Update File: {self.path}", *move, "-x", "+x"]


_ops = st.one_of(
    st.builds(Op, st.just("add"), st.sampled_from(PATHS)),
    st.builds(Op, st.just("delete"), st.sampled_from(PATHS)),
    st.builds(Op, st.just("update"), st.sampled_from(PATHS), st.none() | st.sampled_from(PATHS)),
)


def _do_for_real(root: Path, op: Op) -> None:
    target = root / op.path
    match op.kind:
        case "add":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("x\n")
        case "delete":
            target.unlink()
        case "update":
            assert target.read_text() == "x\n"
            dest = root / (op.dest or op.path)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text("x\n")
            if dest != target:
                target.unlink()


def _tree(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PATHS), max_size=3), st.lists(_ops, min_size=1, max_size=5))
def test_preflight_refuses_exactly_what_the_filesystem_would(existing: list[str], ops: list[Op]) -> None:
    with tempfile.TemporaryDirectory() as name:
        before, oracle, work = (Path(name) / n for n in ("before", "oracle", "work"))
        before.mkdir()
        for path in existing:
            try:
                _do_for_real(before, Op("add", path))
            except OSError:
                pass  # a path under a file: the starting tree just lacks it
        shutil.copytree(before, oracle)
        shutil.copytree(before, work)
        try:
            for op in ops:
                _do_for_real(oracle, op)
            valid = True
        except OSError:
            valid = False
        patch = "\n".join(["*** Begin Patch", *(line for op in ops for line in op.lines()), "*** End Patch"])
        plan = verify(resolve(work, parse_patch(patch)))
        applied, failure = apply(plan)
        if valid:
            assert failure is None, failure
            assert _tree(work) == _tree(oracle)
        else:
            assert plan.failure is not None, f"preflight passed but the writes failed: {failure}"
            assert applied == [] and _tree(work) == _tree(before)
