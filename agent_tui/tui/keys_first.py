"""Keys before output: a transcript repaint waits for the frame that shows the user's key.

While a long answer streams, a transcript repaint makes the next frame re-arrange
the screen (the live part grew): 10-30 ms of CPU on the 2-core dev VM. A key
that lands between a repaint and its frame waits for that frame, then a key
that lands during it waits again: that is the tail of "key → screen" (issue
32's budget). So a scheduled repaint that finds a key not yet on screen comes
back a frame later. The key's own frame then redraws the prompt alone, and the
output follows one frame behind. It never waits longer than :data:`MAX_WAIT_S`,
so a stuck key cannot freeze the transcript, and a typist's pauses between keys
let the repaints through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from agent_tui.vocab.clock import Clock

MAX_WAIT_S = 0.1
"""How long output waits at most for keys to reach the screen."""
RETRY_S = 1 / 120
"""How soon a waiting repaint looks again: one frame at Textual's rate here (``TEXTUAL_FPS``)."""


class Pump(Protocol):
    def call_after_refresh(self, callback: Callable[[], None], /) -> bool: ...


class KeysFirst:
    """Counts keys delivered but not yet painted; :attr:`waiting` while there are any."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._unpainted = 0
        self._since_ms = 0

    def delivered(self, target: Pump) -> None:
        """A key was queued for ``target`` (the focused widget): it counts until the frame after it."""
        if self._unpainted == 0:
            self._since_ms = self.clock.now_ms()
        self._unpainted += 1
        if not target.call_after_refresh(self._painted):  # queued behind the key: runs after its frame
            self._painted()

    def _painted(self) -> None:
        self._unpainted = max(0, self._unpainted - 1)

    @property
    def waiting(self) -> bool:
        """Whether output should wait: a key is not on screen yet, and has not waited too long.

        Past the limit the count starts again from nothing: a key whose widget went away before
        its frame (a closed dialog) never reports, and must not hold output back, nor keep later
        keys from counting."""
        if self._unpainted and self.clock.now_ms() - self._since_ms >= MAX_WAIT_S * 1000:
            self._unpainted = 0
        return self._unpainted > 0
