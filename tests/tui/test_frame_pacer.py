"""The screen's frames come as soon as they are due: one period after the last, not one to two."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from textual.app import App

from agent_tui.tui.frame_pacer import PACEABLE, FramePacer, PacedScreen
from agent_tui.tui.widgets.prompt import PromptInput
from tests.waiting import until

from .conftest import until as until_painted
from .test_app import opened

PERIOD = 0.01


class Paced:
    """A FramePacer on a manual clock (sleeping moves it) whose frames pause it, as the screen's do."""

    def __init__(self, app: App[None], hurry: bool) -> None:
        self.now, self.slept, self.frames, self.hurried = 100.0, list[float](), list[float](), hurry
        self.pacer = FramePacer(app, PERIOD, callback=self.frame, pause=True, hurry=lambda: self.hurried)
        self.pacer.clock, self.pacer.sleep = (lambda: self.now), self.sleep
        self.on_sleep = lambda: None
        self.cost = 0.0  # how long a frame takes

    async def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds
        self.on_sleep()
        await asyncio.sleep(0)

    def frame(self) -> None:
        self.frames.append(round(self.now, 6))
        self.now += self.cost
        self.pacer.pause()

    async def wanted(self, after: float = 0.0) -> None:
        """``after`` seconds pass, then something is dirty: wait for the frame."""
        self.now += after
        count = len(self.frames)
        self.pacer.resume()
        await until(lambda: len(self.frames) > count, "the frame")


@contextlib.asynccontextmanager
async def paced(hurry: bool) -> AsyncIterator[Paced]:
    async with App[None]().run_test() as pilot:
        timer = Paced(pilot.app, hurry)
        timer.pacer._start()
        try:
            yield timer
        finally:
            timer.pacer.stop()


async def test_a_keys_frame_asked_for_just_after_the_last_waits_only_for_the_rest_of_the_period() -> None:
    async with paced(hurry=True) as timer:
        await timer.wanted()
        await timer.wanted(after=0.004)  # that frame took 4 ms; then a key arrives
        assert timer.slept == [0.006]  # Textual's own timer waits 1.5 periods here
        assert timer.frames == [100.0, 100.01]
        await timer.wanted(after=0.5)  # nothing for a while: the next frame comes at once
        assert timer.slept == [0.006] and timer.frames[2] == 100.51


async def test_output_frames_come_two_periods_apart_and_a_key_cuts_the_wait_short() -> None:
    async with paced(hurry=False) as timer:
        await timer.wanted()
        await timer.wanted(after=0.004)
        assert timer.slept == [0.006, 0.0025, 0.0025, 0.0025, 0.0025]  # until a key could go, then in steps
        assert timer.frames == [100.0, 100.02]  # two periods apart

        def key_arrives() -> None:
            timer.hurried = True

        timer.slept.clear()
        timer.on_sleep = key_arrives  # a key comes during the first step of the wait
        await timer.wanted(after=0.001)
        assert timer.slept == [0.009]
        assert timer.frames[2] == 100.03  # one period after the last, not two


async def test_after_a_long_frame_output_leaves_the_loop_as_long_again_but_a_key_goes_at_once() -> None:
    async with paced(hurry=False) as timer:
        timer.cost = 0.03
        await timer.wanted()  # 100.0 to 100.03
        await timer.wanted()
        assert timer.frames == [100.0, 100.06]  # 30 ms for everything else first
        timer.hurried = True
        await timer.wanted()  # a key: its frame as soon as the last one ended
        assert timer.frames[2] == 100.09


async def test_the_app_paints_from_the_pacer(fake_sessions, make_app) -> None:
    assert PACEABLE, "Textual's timer or screen internals changed: see agent_tui/tui/frame_pacer.py"
    async with opened(fake_sessions, make_app) as (app, pilot):
        assert isinstance(app.screen, PacedScreen)
        assert isinstance(app.screen._update_timer, FramePacer)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("x")
        await until_painted(pilot, lambda: prompt.text.endswith("x"))
