"""Up/Down and Ctrl+S over the project's prompt history, kept across launches (``prompt_history``)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets._footer import FooterKey

from agent_tui.core.api import paths
from agent_tui.tui.app import AgentApp
from agent_tui.tui.prompt_history import FILE_NAME, PromptHistory
from agent_tui.tui.screens.history_search import HistorySearch
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets import prompt as prompt_module
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.vocab.clock import ManualClock
from tests.fakes.sessions import FakeSessions

from .conftest import FAST
from .test_app import until


def app_in(location: Path) -> AgentApp:
    """A fresh app (its own sessions) in ``location``; the history file is AGENT_TUI_HOME's."""
    services = TuiServices(
        sessions=FakeSessions(), location=str(location), model="openai/fake", clock=ManualClock(), timings=FAST
    )
    return AgentApp(services, watch_themes=False)


def stored(location: Path) -> list[str]:
    history = PromptHistory(str(paths.project_root(location)), paths.data_dir() / FILE_NAME)
    history.load()
    return history.entries


def seed(location: Path, *texts: str) -> None:
    history = PromptHistory(str(paths.project_root(location)), paths.data_dir() / FILE_NAME)
    for text in texts:
        history.save(text)


async def ready(pilot, app: AgentApp) -> PromptInput:
    prompt = app.query_one(PromptInput)
    await until(pilot, lambda: prompt.prompts.loaded)
    return prompt


async def test_prompts_sent_in_one_launch_come_back_in_the_next(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    first = app_in(project)
    async with first.run_test() as pilot:
        await ready(pilot, first)
        for text in ("one", "two", "one", " not me"):
            await pilot.press(*text, "enter")
        await until(pilot, lambda: stored(project) == ["two", "one"])  # the duplicate moved, the spaced one kept out
    assert not (project / FILE_NAME).exists() and not list(project.iterdir())  # nothing in the project

    second = app_in(project)
    async with second.run_test() as pilot:
        prompt = await ready(pilot, second)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.text == "one"
        await pilot.press("up")
        assert prompt.text == "two"
        await pilot.press("up")  # the oldest: stays
        assert prompt.text == "two"
        await pilot.press("down", "down")
        assert prompt.text == "draft"  # what was being typed comes back


async def test_each_project_has_its_own_history(tmp_path: Path) -> None:
    (tmp_path / "a" / ".git").mkdir(parents=True)
    (tmp_path / "a" / "src").mkdir()
    (tmp_path / "b").mkdir()
    seed(tmp_path / "a", "in a")
    seed(tmp_path / "b", "in b")
    for location, expected in [(tmp_path / "a" / "src", "in a"), (tmp_path / "b", "in b")]:  # keyed by the root
        app = app_in(location)
        async with app.run_test() as pilot:
            prompt = await ready(pilot, app)
            await pilot.press("up")
            assert prompt.text == expected
            await pilot.press("up")
            assert prompt.text == expected


async def test_up_moves_inside_a_multi_line_draft_and_recalls_only_from_its_first_line(tmp_path: Path) -> None:
    seed(tmp_path, "earlier")
    app = app_in(tmp_path)
    async with app.run_test() as pilot:
        prompt = await ready(pilot, app)
        await pilot.press("a", "shift+enter", "b", "shift+enter", "c")
        await pilot.press("up")
        assert prompt.text == "a\nb\nc" and prompt.cursor_location[0] == 1
        await pilot.press("up")
        assert prompt.text == "a\nb\nc" and prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert prompt.text == "earlier"
        await pilot.press("down")
        assert prompt.text == "a\nb\nc"


async def test_ctrl_s_filters_the_history_and_enter_puts_the_choice_in_the_prompt(tmp_path: Path) -> None:
    seed(tmp_path, "fix the parser", "add tests", "fix the lexer")
    app = app_in(tmp_path)
    async with app.run_test() as pilot:
        prompt = await ready(pilot, app)
        await pilot.press(*"half")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, HistorySearch))
        search = app.screen
        assert isinstance(search, HistorySearch)
        assert search.matches == ["fix the lexer", "add tests", "fix the parser"]
        await pilot.press(*"fix")
        await until(pilot, lambda: search.matches == ["fix the lexer", "fix the parser"])
        await pilot.press("down", "enter")
        await until(pilot, lambda: not isinstance(app.screen, HistorySearch))
        assert prompt.text == "fix the parser" and prompt.has_focus
        await pilot.press("down")  # Down walks on from the chosen one, in the history's order
        assert prompt.text == "add tests"
        await pilot.press("down", "down")  # past the newest: the draft again
        assert prompt.text == "half"

        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, HistorySearch))
        await pilot.press(*"tests", "escape")
        await until(pilot, lambda: not isinstance(app.screen, HistorySearch))
        assert prompt.text == "half"


async def test_the_footer_shows_the_history_key(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test() as pilot:
        await ready(pilot, app)

        def shown() -> set[tuple[str, str]]:
            return {(key.key, key.description) for key in app.screen.query(FooterKey)}

        await until(pilot, lambda: ("ctrl+s", "history") in shown())


async def test_an_unusable_history_file_is_said_once_and_up_still_works_in_memory(tmp_path: Path, monkeypatch) -> None:
    blocked = tmp_path / "home-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("AGENT_TUI_HOME", str(blocked))  # the history file's folder cannot be made
    app = app_in(tmp_path)
    async with app.run_test() as pilot:
        prompt = await ready(pilot, app)
        await until(pilot, lambda: any(n.message.startswith("prompt history unavailable") for n in app._notifications))
        await pilot.press(*"still here", "enter")
        await until(pilot, lambda: prompt.text == "")
        assert prompt.prompts.entries == ["still here"]  # Up recalls it this launch (the pending strip aside)
        assert not any(n.message.startswith("prompt not saved") for n in app._notifications)  # said once


def hold_the_read(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The history file's read waits for ``gate``; ``reading`` is set once it started."""
    gate, reading = threading.Event(), threading.Event()
    load = PromptHistory.load

    def held(history: PromptHistory) -> None:
        reading.set()
        assert gate.wait(10)
        load(history)

    monkeypatch.setattr(PromptHistory, "load", held)
    return gate, reading


@pytest.mark.parametrize("key", ["up", "ctrl+s"])
async def test_a_key_pressed_before_the_file_is_read_waits_for_it(tmp_path: Path, monkeypatch, key: str) -> None:
    """A launch paints its prompt before the file is read: an Up (or Ctrl+S) at once waits for it,
    and keys typed after it come after it."""
    seed(tmp_path, "earlier")
    gate, reading = hold_the_read(monkeypatch)
    app = app_in(tmp_path)
    try:
        async with app.run_test() as pilot:
            prompt = app.query_one(PromptInput)
            await until(pilot, reading.is_set)
            threading.Timer(0.2, gate.set).start()  # read while the key waits
            if key == "up":
                await pilot.press("up", "!")
                await until(pilot, lambda: prompt.text == "!earlier")
            else:
                await pilot.press("ctrl+s")
                await until(pilot, lambda: isinstance(app.screen, HistorySearch) and app.screen.matches == ["earlier"])
    finally:
        gate.set()


async def test_an_up_waits_for_a_locked_file_no_longer_than_its_limit(tmp_path: Path, monkeypatch) -> None:
    seed(tmp_path, "earlier")
    gate, _ = hold_the_read(monkeypatch)
    monkeypatch.setattr(prompt_module, "HISTORY_WAIT_S", 0.05)
    app = app_in(tmp_path)
    try:
        async with app.run_test() as pilot:
            prompt = app.query_one(PromptInput)
            await pilot.press("up", *"typed")
            await until(pilot, lambda: prompt.text == "typed")  # the keys went on without the history
            gate.set()
            await until(pilot, lambda: prompt.prompts.loaded)
            prompt.clear()
            await pilot.press("up")
            assert prompt.text == "earlier"
    finally:
        gate.set()
