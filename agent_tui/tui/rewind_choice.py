"""What the person chose on the rewind screen, a value both the screen and the session view use.

Its own module (no Textual) so that the session view, which carries the choice out,
does not import the screen that asks for it: widgets never import screens.
"""

from __future__ import annotations

from dataclasses import dataclass

UNDO = "undo"
FORK = "fork"
MODES = (("both", "conversation and files"), ("conversation", "conversation only"), ("files", "files only"))


@dataclass(frozen=True)
class RewindChoice:
    """``undo``, or a prompt and ``both`` / ``conversation`` / ``files`` / ``fork``."""

    action: str
    message_id: str | None = None
    text: str = ""

    @property
    def prompt_id(self) -> str:
        """The prompt a rewind or a fork goes back to: every action but ``undo`` has one."""
        if self.message_id is None:
            raise ValueError(f"{self.action}: no prompt was chosen")
        return self.message_id
