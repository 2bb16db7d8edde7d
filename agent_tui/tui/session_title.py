"""What a session is called on screen: one rule for the status bar and the picker.

The store titles a session when it is created with a title, renamed, or (failing
both) from its first admitted prompt; the picker reads that title from the row.
The status bar reads it from the transcript, whose fold mirrors the store's rule
(``vocab.titles.prompt_title``, which the store uses too) so a session followed from its start is named as its row
will be; a session opened mid-log is seeded with the row's title. Both show it
through :func:`session_title`.
"""

from __future__ import annotations

from agent_tui.vocab.terminal_text import inert

SHOWN_CHARS = 70


def session_title(title: str | None, last_message: str | None = None) -> str | None:
    """The title as shown: one line of at most ``SHOWN_CHARS``, no control sequence (a title is any
    text an API client or a prompt gave); an untitled session goes by its last message."""
    text = title or last_message
    return " ".join(inert(text).split())[:SHOWN_CHARS] if text else None
