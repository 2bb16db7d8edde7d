"""Headers are headers only where the grammar puts them.

Inside an update chunk a line that begins with ``' '``, ``-`` or ``+`` is
content, whatever follows: a file that contains header text can be edited,
and that text can never add, delete or move a file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.scope import ToolScope

from .conftest import invoke_tool, output_text

LOOKALIKES = [
    "*** Add File: intruder.txt",
    "*** Delete File: victim.txt",
    "*** Update File: victim.txt",
    "*** Move to: moved.txt",
    "*** End of File",
    "*** End Patch",
    "*** Begin Patch",
]

# kind -> (file before, patch chunk, file after), with H standing for the lookalike
KINDS = {
    "context-first": ("H\nbottom\n", [" H", "-bottom", "+BOTTOM"], "H\nBOTTOM\n"),
    "context": ("top\nH\nbottom\n", ["-top", "+TOP", " H", " bottom"], "TOP\nH\nbottom\n"),
    "context-last": ("top\nH\n", ["-top", "+TOP", " H"], "TOP\nH\n"),
    "removed": ("top\nH\nbottom\n", [" top", "-H", " bottom"], "top\nbottom\n"),
    "removed-last": ("top\nH\n", [" top", "-H"], "top\n"),
    "added": ("top\nbottom\n", [" top", "+H", " bottom"], "top\nH\nbottom\n"),
    "added-first": ("top\n", ["+H", " top"], "H\ntop\n"),
}


@pytest.mark.parametrize("lookalike", LOOKALIKES)
@pytest.mark.parametrize("kind", KINDS)
async def test_header_lookalike_content_is_content(workdir: Path, scope: ToolScope, lookalike: str, kind: str) -> None:
    before, chunk, after = KINDS[kind]
    (workdir / "f.txt").write_text(before.replace("H", lookalike))
    (workdir / "victim.txt").write_text("victim\n")
    lines = [line.replace("H", lookalike) for line in chunk]
    patch = "\n".join(["*** Begin Patch", "*** Update File: f.txt", *lines, "*** End Patch"])
    text = output_text(await invoke_tool(APPLY_PATCH, scope, patch=patch))
    assert text.splitlines()[1:] == ["M f.txt"]
    assert (workdir / "f.txt").read_text() == after.replace("H", lookalike)
    assert sorted(p.name for p in workdir.iterdir() if p.name != ".git") == ["f.txt", "victim.txt"]
    assert (workdir / "victim.txt").read_text() == "victim\n"


async def test_padded_headers_between_operations_still_count(workdir: Path, scope: ToolScope) -> None:
    """Whitespace before a header is tolerated where a header may stand (Codex scenario 017)."""
    (workdir / "a.txt").write_text("a\n")
    patch = "*** Begin Patch\n  *** Update File: a.txt\n@@\n-a\n+b\n\t*** Add File: c.txt\n+c\n *** End Patch"
    assert output_text(await invoke_tool(APPLY_PATCH, scope, patch=patch)).splitlines()[1:] == ["M a.txt", "A c.txt"]
    assert (workdir / "a.txt").read_text() == "b\n" and (workdir / "c.txt").read_text() == "c\n"
