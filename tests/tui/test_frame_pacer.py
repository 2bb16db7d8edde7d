"""The screen's frames come as soon as they are due: one period after the last, not one to two."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static, TextArea

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


async def test_a_tick_that_painted_nothing_is_not_counted_and_looks_again_soon() -> None:
    async with paced(hurry=True) as timer:
        await timer.wanted()
        ticks: list[float] = []

        def not_yet() -> None:  # the screen's answer when a key has not reached its widget yet
            ticks.append(round(timer.now, 6))
            timer.pacer.deferred = True
            timer.pacer._callback = timer.frame  # the next tick paints

        timer.pacer._callback = not_yet
        timer.slept.clear()
        await timer.wanted(after=0.004)
        # the tick at 100.01 painted nothing; 1/8 period later the next one is due at once, as the
        # last frame is still the one at 100.0
        assert ticks == [100.01]
        assert timer.frames == [100.0, 100.01125]
        assert timer.slept == [0.006, 0.00125]


class Output(VerticalScroll):
    """The transcript's stand-in: a box its content does not size."""

    DEFAULT_CSS = "Output { height: 1fr; }"


class Prompt(TextArea):
    """A prompt of fixed height, as the app's is while its text fits (Textual's ``Input`` asks
    for a layout on every key)."""

    DEFAULT_CSS = "Prompt { height: 3; }"


class Keyed(App[None]):
    """A paced screen with output above a prompt; ``hurried``: a key waits to be shown."""

    def __init__(self, chrome_height: str = "1") -> None:
        super().__init__()
        self.hurried = False
        self.chrome_height = chrome_height

    def get_default_screen(self) -> PacedScreen[None]:
        return PacedScreen(id="_default", hurry=lambda: self.hurried)

    def compose(self) -> ComposeResult:
        with Vertical(id="around"):
            with Output():
                yield Static("line", id="text")
                yield Prompt(id="inner")
            chrome = Static("status", id="chrome")
            chrome.styles.height = self.chrome_height
            yield chrome
            yield Prompt(id="prompt")


@contextlib.asynccontextmanager
async def keyed(chrome_height: str = "1") -> AsyncIterator[tuple[Keyed, Static, Prompt]]:
    app = Keyed(chrome_height)
    async with app.run_test(size=(40, 20)) as pilot:
        prompt = app.query_one("#prompt", Prompt)
        prompt.focus()
        await until_painted(pilot, lambda: app.focused is prompt)
        yield app, app.query_one("#text", Static), prompt


async def grow_while_a_key_waits(app: Keyed, text: Static, target: Prompt) -> dict[str, bool]:
    """The output grows and, while its layout is pending, a key reaches ``target``; what each
    side's after-refresh callback saw: whether the output had been re-arranged by then."""
    seen: dict[str, bool] = {}
    before = text.size.height
    app.hurried = True
    text.update("line\n" * 5)
    await until(lambda: app.screen._layout_required, "the output's layout asked for")
    target.insert("x")
    target.call_after_refresh(lambda: seen.setdefault("key", text.size.height > before))
    text.call_after_refresh(lambda: seen.setdefault("output", text.size.height > before))
    await until(lambda: "key" in seen, "the key's frame")
    app.hurried = False  # the key is on screen
    await until(lambda: "output" in seen, "the output's frame")
    return seen


async def test_a_keys_frame_leaves_the_outputs_pending_layout_to_the_next_frame() -> None:
    async with keyed() as (app, text, prompt):
        seen = await grow_while_a_key_waits(app, text, prompt)
        assert seen == {"key": False, "output": True}  # the key painted first; the output's callback after its layout


async def test_a_key_inside_the_pending_output_waits_for_its_layout() -> None:
    async with keyed() as (app, text, _):
        inner = app.query_one("#inner", Prompt)
        inner.focus()
        seen = await grow_while_a_key_waits(app, text, inner)
        assert seen == {"key": True, "output": True}


async def test_chrome_sized_by_its_content_around_the_prompt_makes_the_keys_frame_whole() -> None:
    async with keyed(chrome_height="auto") as (app, text, prompt):
        app.query_one("#chrome", Static).update("status\nsecond line")  # may move the prompt
        seen = await grow_while_a_key_waits(app, text, prompt)
        assert seen == {"key": True, "output": True}


async def test_a_container_around_the_pending_output_is_not_painted_in_the_keys_frame() -> None:
    async with keyed() as (app, text, prompt):
        painted: list[tuple[set[str], bool]] = []  # each frame's dirty widgets, and whether layout was pending
        compositor = app.screen._compositor
        update_widgets = compositor.update_widgets

        def recorded(widgets: set[Widget]) -> None:
            painted.append(({str(widget.id) for widget in widgets}, app.screen._layout_required))
            update_widgets(widgets)

        compositor.update_widgets = recorded  # type: ignore[method-assign]
        app.query_one("#around").refresh()  # its region holds the output: painting it would paint that too
        seen = await grow_while_a_key_waits(app, text, prompt)
        assert seen == {"key": False, "output": True}
        # the key's frame paints the prompt alone; the layout's frame (Textual's, which updates the
        # dirty widgets before it re-arranges) the rest
        assert [ids for ids, pending in painted if pending] == [{"prompt"}, {"around", "text"}]
