"""Garbage collection for a live UI: young collections often, full ones when nobody waits.

A full collection walks every tracked object. While a long answer streams that
is Textual's widget tree plus every cached line of the transcript (each
``Strip`` carries seven small caches): ~200 000 objects, a 170-230 ms stall of
the event loop on the 2-core dev VM, measured with ``gc.callbacks`` in
``bench/tui.py``'s stream. Young collections stay frequent and cheap; the full
collection CPython's default cadence would run is postponed to a quiet moment
(no key pressed and no transcript repaint for a second: a tool running, the
provider thinking, the user reading) and runs unprompted only after
:data:`FULL_BACKSTOP` gen-1 passes, which bounds memory through a long
uninterrupted stream.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from agent_tui.vocab.clock import Clock

YOUNG = 10_000  # allocations between gen-0 collections: repaint garbage dies young
MIDDLE = 5  # gen-0 collections per gen-1: 20x let gen 1 reach ~200k objects (40-50 ms pauses), 5x: 10-15 ms
FULL_DUE = 10  # gen-1 collections after which CPython's default cadence would run a full one
FULL_BACKSTOP = 100  # ...and after which it runs anyway, quiet or not


def tune_runtime() -> None:
    """After the first frame: freeze what start-up built (imports, CSS, the widget skeleton) out
    of the collector's reach and turn collection on (``agent-tui`` starts with it off)."""
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, FULL_BACKSTOP)
    gc.enable()


class QuietCollector:
    """Runs the postponed full collection once nothing has happened for ``quiet_s``.

    ``busy()`` marks activity (a key, a transcript repaint); ``tick()`` is called on a
    timer and collects when a full collection is due and the app has been quiet.
    """

    def __init__(
        self,
        clock: Clock,
        quiet_s: float,
        pending: Callable[[], int] = lambda: gc.get_count()[2],
        collect: Callable[[], object] = gc.collect,
        enabled: Callable[[], bool] = gc.isenabled,
    ) -> None:
        self._clock, self._quiet_ms = clock, quiet_s * 1000
        self._pending, self._collect, self._enabled = pending, collect, enabled
        self.last_busy_ms = clock.now_ms()

    def busy(self) -> None:
        self.last_busy_ms = self._clock.now_ms()

    def tick(self) -> bool:
        """Collect if a full collection is due and nobody would notice; says whether it ran."""
        if self._pending() < FULL_DUE or self._clock.now_ms() - self.last_busy_ms < self._quiet_ms:
            return False
        if not self._enabled():  # paused while LiteLLM imports: a full pass now would walk all it made
            return False
        self._collect()
        return True
