"""A session's title from its first prompt: one rule for the store that saves it and the UI that
names a session it follows before reading the row. No pydantic (the TUI's first frame imports it)."""

from __future__ import annotations

TITLE_CHARS = 60


def prompt_title(text: str) -> str | None:
    """The first line of the prompt's text, cut with an ellipsis at ``TITLE_CHARS``; None when empty."""
    text = text.strip()
    if not text:
        return None
    line = text.splitlines()[0].strip()
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"
