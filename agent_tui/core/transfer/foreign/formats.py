"""The foreign session formats this build reads: one reader module each, by the ``--from`` name.

A reader is ``read(text, path) -> Imported``: the whole file read and built,
nothing written; a file it cannot read is one :class:`UnreadableSession`. A new
format is a module beside these and a row here, plus its
default location in ``locate``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_tui.core.transfer.foreign import claude_code, codex, gemini, opencode
from agent_tui.core.transfer.foreign.draft import Imported, UnreadableSession

Reader = Callable[[str, str], Imported]
Peek = Callable[[dict[str, Any]], "str | None"]

READERS: dict[str, Reader] = {
    "claude": claude_code.read,
    "codex": codex.read,
    "gemini": gemini.read,
    "opencode": opencode.read,
}
LABELS: dict[str, str] = {
    "claude": claude_code.LABEL,
    "codex": codex.LABEL,
    "gemini": gemini.LABEL,
    "opencode": opencode.LABEL,
}
FIRST_PROMPT: dict[str, Peek] = {
    "claude": claude_code.first_prompt,
    "codex": codex.first_prompt,
    "gemini": gemini.first_prompt,
    "opencode": opencode.first_prompt,
}


def reader(agent: str) -> Reader:
    found = READERS.get(agent)
    if found is None:
        raise UnreadableSession(f"cannot import from {agent!r}: this build reads {', '.join(sorted(READERS))}")
    return found
