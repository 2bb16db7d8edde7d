"""Another agent's file edit as an ``apply_patch`` patch, so the transcript shows it as the same diff.

Only edits whose change is known line by line become patches: a unified diff's
hunks (Claude Code's ``structuredPatch``, Codex's ``unified_diff``) or a new
file's whole text. The patch is what the TUI draws and what the model reads
back in the history; it is never applied again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

BEGIN, END = "*** Begin Patch", "*** End Patch"


def shown_path(path: str, cwd: str) -> str:
    """``path`` relative to ``cwd`` when it lies inside it (as our patches name files), else as given."""
    try:
        return str(PurePosixPath(path).relative_to(cwd))
    except ValueError:
        return path


def update(path: str, hunks: Iterable[Sequence[str]]) -> str:
    """A patch updating ``path``: each hunk's lines start with ' ', '-' or '+' (a unified diff's body)."""
    body: list[str] = []
    for lines in hunks:
        body.append("@@")
        body += [line if line[:1] in (" ", "-", "+") else " " + line for line in lines]
    return "\n".join([BEGIN, f"*** Update File: {path}", *body, END]) + "\n"


def add(path: str, text: str) -> str:
    """A patch creating ``path`` with ``text``."""
    return "\n".join([BEGIN, f"*** Add File: {path}", *("+" + line for line in text.splitlines()), END]) + "\n"


def unified_hunks(diff: str) -> list[list[str]]:
    """The hunks of a unified diff's text (``@@ -1,2 +1,2 @@`` headers split them; file headers dropped)."""
    hunks: list[list[str]] = []
    for line in diff.splitlines():
        if line.startswith("@@"):
            hunks.append([])
        elif hunks and not line.startswith(("--- ", "+++ ", "\\")):
            hunks[-1].append(line)
    return hunks
