"""Preflight judges each operation against the tree as the earlier operations of the patch leave it.

So a valid multi-operation patch is never refused (a file deleted or moved
away before a directory takes its name), and an invalid one (a file where an
earlier operation made a directory, or the other way round) writes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.scope import ToolScope

from .conftest import error_message, invoke_tool, output_text


def wrap(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and directory (None) below ``root``, its ``.git`` aside."""
    paths = (p for p in sorted(root.rglob("*")) if p.relative_to(root).parts[0] != ".git")
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in paths}


async def test_a_deleted_file_gives_its_name_to_a_directory(workdir: Path, scope: ToolScope) -> None:
    (workdir / "x").write_text("was a file\n")
    ok = output_text(
        await invoke_tool(APPLY_PATCH, scope, patch=wrap("*** Delete File: x", "*** Add File: x/y.txt", "+y"))
    )
    assert ok.splitlines()[1:] == ["D x", "A x/y.txt"]
    assert tree(workdir) == {"x": None, "x/y.txt": b"y\n"}


async def test_a_moved_file_gives_its_name_to_a_directory(workdir: Path, scope: ToolScope) -> None:
    (workdir / "a").write_text("a\n")
    patch = wrap("*** Update File: a", "*** Move to: b/a", "-a", "+A", "*** Add File: a/inner.txt", "+i")
    ok = output_text(await invoke_tool(APPLY_PATCH, scope, patch=patch))
    assert ok.splitlines()[1:] == ["M b/a", "A a/inner.txt"]
    assert tree(workdir) == {"a": None, "a/inner.txt": b"i\n", "b": None, "b/a": b"A\n"}


async def test_a_file_added_then_moved_then_updated(workdir: Path, scope: ToolScope) -> None:
    patch = wrap(
        "*** Add File: n.txt",
        "+one",
        "*** Update File: n.txt",
        "*** Move to: deep/m.txt",
        "-one",
        "+two",
        "*** Update File: deep/m.txt",
        "-two",
        "+three",
    )
    output_text(await invoke_tool(APPLY_PATCH, scope, patch=patch))
    assert tree(workdir) == {"deep": None, "deep/m.txt": b"three\n"}


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (("*** Add File: d/f.txt", "+f", "*** Add File: d", "+d"), "Add File d: Failed to add d: it is a directory"),
        (("*** Add File: x", "+x", "*** Add File: x/y", "+y"), "Add File x/y: Failed to write x/y:"),
        (("*** Add File: d/f.txt", "+f", "*** Update File: d", "-a", "+b"), "Failed to update d: it is a directory"),
        (("*** Add File: d/f.txt", "+f", "*** Delete File: d"), "Failed to delete d: it is a directory"),
        (
            ("*** Add File: d/f.txt", "+f", "*** Update File: a.txt", "*** Move to: d", "-a", "+b"),
            "Failed to move a.txt to d: the destination is a directory",
        ),
        (
            ("*** Update File: a.txt", "*** Move to: b.txt", "-a", "+b", "*** Update File: a.txt", "-a", "+c"),
            "Failed to update a.txt: an earlier operation of this patch deletes it",
        ),
        (("*** Update File: a.txt", "*** Move to: a.txt/inner.txt", "-a", "+b"), "Failed to write a.txt/inner.txt:"),
    ],
    ids=[
        "file-over-new-dir",
        "dir-under-new-file",
        "update-new-dir",
        "delete-new-dir",
        "move-onto-new-dir",
        "update-moved-away",
        "move-below-itself",
    ],
)
async def test_an_invalid_later_operation_writes_nothing(
    workdir: Path, scope: ToolScope, body: tuple[str, ...], reason: str
) -> None:
    (workdir / "a.txt").write_text("a\n")
    before = tree(workdir)
    message = error_message(await invoke_tool(APPLY_PATCH, scope, patch=wrap(*body)))
    assert reason in message and message.endswith("No files were changed.")
    assert tree(workdir) == before
