"""What a session is called on screen: one rule for the status bar and the picker.

The store titles a session when it is created with a title, renamed, or (failing
both) from its first admitted prompt; the picker reads that title from the row.
The status bar reads it from the transcript, whose fold mirrors the store's rule
(:func:`prompt_title`) so a session followed from its start is named as its row
will be; a session opened mid-log is seeded with the row's title. Both show it
through :func:`session_title`.
"""

from __future__ import annotations

TITLE_CHARS = 60  # the store's (core.project_inbox.TITLE_CHARS); a test keeps the rules equal
SHOWN_CHARS = 70


def prompt_title(text: str) -> str | None:
    """The title the store gives a session from its first prompt: the first line, cut with an ellipsis."""
    text = text.strip()
    if not text:
        return None
    line = text.splitlines()[0].strip()
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def session_title(title: str | None, last_message: str | None = None) -> str | None:
    """The title as shown: one line of at most ``SHOWN_CHARS``; an untitled session goes by its last message."""
    text = title or last_message
    return " ".join(text.split())[:SHOWN_CHARS] if text else None
