"""When the screen paints: a typed key's frame as soon as it is due, the rest at most 60 a second.

A Textual screen paints from a timer that pauses while nothing is dirty and resumes on
the next change. Its first tick after a pause comes at once; the one after it does not.
``Timer._run`` then finds its schedule behind and skips ahead one slot too far, so the
next frame waits one to two periods however early it was asked for. While an answer
streams the screen paints about every other period, so a key typed just after a frame
waited 8-17 ms at 120 fps before its own frame could start: half the median of "key →
screen" in ``bench/tui.py``'s stream (issue 32).

:class:`FramePacer` starts a frame as soon as one is wanted and enough time has passed
since the last: one period (``TEXTUAL_FPS``, 120 here) while ``hurry`` says a key waits
to be shown. Other frames come two periods apart, and after a frame that took longer
than that, only once the loop has had as long again for everything else. The calmer
pace matters: a streamed repaint that grows the answer makes Textual ask for a second
layout from inside the first, and painting every such frame at once doubled the frames
of a fast stream (182 to 420 in the bench) and the time it took to reach the screen.
:class:`PacedScreen` gives a screen that timer.

Both lean on Textual's private timer and screen internals (pinned in ``constraints.txt``);
:data:`PACEABLE` checks they are there, and without them a screen keeps Textual's timer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from textual.screen import UPDATE_PERIOD, Screen
from textual.timer import EventTargetGone, Timer

PACEABLE = all(hasattr(Timer, name) for name in ("_tick", "_active", "_start", "_run")) and hasattr(
    Screen, "_on_timer_update"
)
"""Whether the Textual installed has the internals the pacer relies on."""

CALM = 2
"""Periods between frames when no key waits to be shown: Textual's default 60 a second at 120."""

ResultType = TypeVar("ResultType")


def never() -> bool:
    return False


class FramePacer(Timer):
    """A repeating timer that ticks when active and at least one interval after its last tick
    (unless ``hurry()``: :data:`CALM` intervals, and as long after a tick as the tick took).

    ``clock`` and ``sleep`` are the class's so a test can run it on a manual clock.
    """

    clock: Callable[[], float] = staticmethod(time.monotonic)
    sleep: Callable[[float], Awaitable[None]] = staticmethod(asyncio.sleep)

    def __init__(self, *args: Any, hurry: Callable[[], bool] = never, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hurry = hurry

    async def _run(self) -> None:
        last = ended = float("-inf")
        spent, count = 0.0, 0
        while True:
            await self._active.wait()
            now = self.clock()
            hurried_at = last + self._interval  # the earliest a key's frame may come
            # output: two periods apart, and after a long frame as long again for everything else
            calm_at = max(last + self._interval * CALM, ended + spent)
            early = (hurried_at if self.hurry() else calm_at) - now
            if early > 0:  # in short steps once a key could go, so one that arrives is not kept waiting
                await self.sleep(min(early, hurried_at - now if hurried_at > now else self._interval / 4))
                continue
            last = self.clock()
            count += 1
            try:
                await self._tick(next_timer=last, count=count)
            except EventTargetGone:
                break
            ended = self.clock()
            spent = ended - last


class PacedScreen(Screen[ResultType]):
    """A screen whose frames come from a :class:`FramePacer`, hurried by ``hurry`` (Textual's timer
    if :data:`PACEABLE` is false)."""

    def __init__(self, *args: Any, hurry: Callable[[], bool] = never, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._hurry = hurry
        self._pacer: Timer | None = None

    @property
    def _update_timer(self) -> Timer:
        if not PACEABLE:
            return super()._update_timer
        if self._pacer is None:
            self._pacer = FramePacer(
                self,
                UPDATE_PERIOD,
                name="screen_update",
                callback=self._on_timer_update,
                pause=True,
                hurry=self._hurry,
            )
            self._pacer._start()
            self._timers.add(self._pacer)  # stopped with the screen's other timers
        return self._pacer
