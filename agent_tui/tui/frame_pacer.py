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
:class:`PacedScreen` gives a screen that timer, and one more rule: a key's frame while the
transcript waits to be re-arranged paints the prompt and leaves that layout to the next frame.
A key that lands just after a streamed repaint no longer waits for the repaint's layout (6-25 ms
of CPU on the 2-core dev VM) before its own frame.

Both lean on Textual's private timer and screen internals (pinned in ``constraints.txt``);
:data:`PACEABLE` checks they are there, and without them a screen keeps Textual's timer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from textual._callback import invoke
from textual._context import active_message_pump
from textual.dom import DOMNode
from textual.message_pump import MessagePump
from textual.screen import UPDATE_PERIOD, Screen
from textual.timer import EventTargetGone, Timer
from textual.widget import Widget

PACEABLE = all(hasattr(Timer, name) for name in ("_tick", "_active", "_start", "_run")) and all(
    hasattr(Screen, name) for name in ("_on_timer_update", "_invoke_later", "_compositor_refresh")
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
        self.deferred = False
        """Set by a tick's callback that painted nothing and wants to be called again shortly."""

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
            before = last, ended, spent
            last = self.clock()
            count += 1
            self.deferred = False
            try:
                await self._tick(next_timer=last, count=count)
            except EventTargetGone:
                break
            if self.deferred:  # nothing painted: look again shortly, as if this tick had not been
                last, ended, spent = before
                await self.sleep(self._interval / 8)
                continue
            ended = self.clock()
            spent = ended - last


Callback = tuple[Callable[[], Any], MessagePump]


class PacedScreen(Screen[ResultType]):
    """A screen whose frames come from a :class:`FramePacer`, hurried by ``hurry`` (Textual's timer
    if :data:`PACEABLE` is false).

    A hurried frame while output waits to be re-arranged paints only what lies outside it
    (:meth:`_paint_outside_layout`): the typed key, not the output's layout.
    """

    def __init__(self, *args: Any, hurry: Callable[[], bool] = never, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._hurry = hurry
        self._pacer: FramePacer | None = None
        self._queued_by: dict[int, DOMNode | None] = {}  # id(callback) -> the node whose queue passed it on

    def _invoke_later(self, callback: Callable[[], Any], sender: MessagePump) -> None:
        """Textual's ``call_after_refresh`` lands here from the queue of the node it was called on:
        that node is the active one now (``sender`` is whoever posted it, often the app)."""
        node = active_message_pump.get(None)
        self._queued_by[id(callback)] = node if isinstance(node, DOMNode) else None
        super()._invoke_later(callback, sender)

    def _on_timer_update(self) -> None:
        if not (PACEABLE and self._paint_outside_layout()):
            super()._on_timer_update()

    def _paint_outside_layout(self) -> bool:
        """While a key waits to be shown, paint what lies outside the output whose layout is
        pending, and leave that layout (its widgets, and the callbacks queued inside them) to the
        next frame. Whether this tick is dealt with.

        A streamed answer that grows a line asks its transcript to re-arrange: a frame of 6-25 ms
        of CPU on the 2-core dev VM. A key typed meanwhile needs only the prompt redrawn, and
        the transcript's box does not depend on its content (:meth:`_deferrable`), so painting
        the prompt first shows the same screen a frame earlier. A key not yet taken by its widget
        would not show in a frame now: the pacer looks again shortly instead.
        """
        if not (self._layout_required and self._hurry() and self.is_current and not self.app._batch_count):
            return False
        if self._repaint_required or self._recompose_required or self.focused is None:
            return False
        deferred = self._deferrable(self.focused)
        if not deferred:
            return False
        # not what is inside that output, nor a container around it: its region would paint the output
        now = {
            widget
            for widget in self._dirty_widgets
            if not _inside(widget, deferred) and not any(_inside(node, [widget]) for node in deferred)
        }
        ready: list[Callback] = []
        held: list[Callback] = []
        for callback, pump in self._callbacks:
            node = self._queued_by.get(id(callback))
            (held if node is not None and _inside(node, deferred) else ready).append((callback, pump))
        self._callbacks[:] = held
        for callback, _ in ready:
            self._queued_by.pop(id(callback), None)
        if now:
            later = self._dirty_widgets - now
            self._update_timer.pause()
            self._dirty_widgets.clear()
            self._dirty_widgets.update(now)
            self._compositor.update_widgets(now)
            self._compositor_refresh()  # clears the dirty set: what waits goes back in
            self._dirty_widgets.update(later)
            self._update_timer.resume()  # the layout's frame
        elif self._pacer is not None:  # the key has not reached its widget: look again shortly
            self._pacer.deferred = True
        if ready:
            self.call_next(self._invoke, ready)
        return True

    def _deferrable(self, focused: Widget) -> list[Widget] | None:
        """The containers whose pending layout can wait for the next frame (None: not all of it can).

        Textual queues a container for layout (``_layout_widgets``) with the children that asked;
        a child that is itself queued is not listed again. A container around the focused widget
        may wait only if every child that asked has a box its content does not change (no
        ``auto`` width or height) and does not hold the focused widget: re-arranging it then moves
        nothing but what is inside those children.
        """
        path = focused.ancestors_with_self
        deferred: list[Widget] = []
        for node, asked in self._layout_widgets.items():
            if not isinstance(node, Widget):
                return None
            if node not in path:
                deferred.append(node)
                continue
            children = asked | {child for child in node.children if child in self._layout_widgets}
            if any(child in path or child.styles.auto_dimensions for child in children):
                return None
        return deferred

    async def _invoke(self, callbacks: list[Callback]) -> None:
        for callback, pump in callbacks:
            with pump._context():
                await invoke(callback)

    async def _invoke_and_clear_callbacks(self) -> None:
        self._queued_by.clear()
        await super()._invoke_and_clear_callbacks()

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


def _inside(node: DOMNode, containers: list[Widget]) -> bool:
    """Whether ``node`` is one of ``containers`` or lies within one."""
    return any(container in containers for container in node.ancestors_with_self)
