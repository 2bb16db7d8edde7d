"""``agent-tui --resume``: the picker's first rows come from the database file before the facade opens."""

from __future__ import annotations

import asyncio

from textual.widgets import OptionList

from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.bootstrap import peek_sessions
from agent_tui.tui.screens.picker import SessionPicker
from agent_tui.tui.services import TuiServices

from .conftest import FAST
from .test_app import until
from .test_app_store import exchange, picker_rows, real  # noqa: F401 - a fixture


def resume_app(sessions, workdir, clock) -> tuple[AgentApp, TuiServices, asyncio.Event]:  # noqa: ANN001
    """``--resume`` with the facade held back until the returned event is set."""
    store_open = asyncio.Event()
    services = TuiServices(sessions=None, location=str(workdir), clock=clock, timings=FAST, peek_sessions=peek_sessions)

    async def connect() -> None:
        await store_open.wait()
        services.connect_to(sessions)

    return AgentApp(services, start=StartMode(picker=True), connect=connect, watch_themes=False), services, store_open


async def test_resume_shows_peeked_rows_at_once_and_the_facade_replaces_them(real, workdir, clock) -> None:
    sessions, executor = real
    ids = []
    for title in ("oldest", "middle", "newest"):
        sid = (await sessions.create(location=workdir)).id
        await exchange(sessions, sid, title, "ok")
        ids.append(sid)
    executor.running.add(ids[1])  # only the facade knows what runs
    app, services, store_open = resume_app(sessions, workdir, clock)
    async with app.run_test() as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == 3)
        picker = app.screen
        assert [r.id for r in picker.rows] == ids[::-1]  # newest first, read before the store opened
        assert picker.loaded_generation == 0 and not services.connected.is_set()
        assert picker_rows(picker)[ids[1]].startswith("  middle")
        await pilot.press("down")  # on "middle"
        store_open.set()
        await until(pilot, lambda: picker.loaded_generation == 1)
        assert picker_rows(picker)[ids[1]].startswith("● middle")  # the facade's rows now
        assert picker.query_one(OptionList).highlighted == 1  # the choice survived the swap
        await pilot.press("enter")
        await until(pilot, lambda: app.view.session_id == ids[1])


async def test_without_a_database_file_the_picker_waits_for_the_facade(fake_sessions, workdir, clock) -> None:
    from agent_tui.core.api import paths

    app, _, store_open = resume_app(fake_sessions, workdir, clock)
    async with app.run_test() as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await pilot.pause()
        assert app.screen.rows == [] and not paths.database_path().exists()  # the peek never creates it
        store_open.set()
        await until(pilot, lambda: app.screen.loaded_generation == 1)
        assert str(app.screen.query_one(OptionList).get_option_at_index(0).prompt) == "no sessions"
