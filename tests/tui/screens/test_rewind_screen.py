"""Esc Esc and /rewind over the real runtime: the list, the preview, the rewind, the undo."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.api import Runtime, Settings, load_settings
from agent_tui.testing.fake_provider import FakeProvider, ScriptToolCall, Turn
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.screens.confirm import ConfirmScreen
from agent_tui.tui.screens.rewind import RewindScreen
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.block_widgets import UserMessage
from agent_tui.tui.widgets.prompt import PromptInput

from ..conftest import FAST
from ..test_app import until
from ..test_app_provider import provider  # noqa: F401 - the fixture

MODEL = "openai/fake-model"


@pytest.fixture
async def runtime(provider: FakeProvider) -> AsyncIterator[Runtime]:
    cli = {"model": MODEL, "api_base": provider.openai_base, "api_key": "test-key"}

    def loader(location: Path) -> Settings:
        return load_settings(location, cli=cli)

    async with await Runtime.open(loader, permission_policy="allow") as opened:
        yield opened


@pytest.fixture
def app(runtime: Runtime, workdir: Path, clock) -> AgentApp:  # type: ignore[no-untyped-def]
    services = TuiServices(sessions=runtime.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST)
    return AgentApp(services, start=StartMode(), watch_themes=False)


def users(app: AgentApp) -> list[str]:
    return [w.block.text for w in app.query(UserMessage)]


async def idle(pilot, app: AgentApp) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.view.session_id is not None and not app.view.is_active, timeout=30)


def options(screen: RewindScreen) -> list[str]:
    listing = screen.query_one("#rewind-list")
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def test_esc_esc_rewinds_conversation_and_files_then_rewind_undoes_it(provider, app, workdir) -> None:  # type: ignore[no-untyped-def]
    provider.add(
        Turn(text="hello"),
        Turn(tool_calls=[ScriptToolCall(id="call_1", name="bash", arguments={"command": "echo made > made.txt"})]),
        Turn(text="made it"),
    )
    async with app.run_test() as pilot:
        await pilot.press(*"say hi", "enter")
        await idle(pilot, app)
        await until(pilot, lambda: users(app) == ["say hi"])
        await pilot.press(*"make a file", "enter")
        await until(pilot, lambda: (workdir / "made.txt").exists(), timeout=30)
        await idle(pilot, app)
        await until(pilot, lambda: users(app) == ["say hi", "make a file"])

        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, RewindScreen) and app.screen.loaded)
        screen = app.screen
        assert [o.split("  ")[0] for o in options(screen)] == ["make a file", "say hi"], "newest first"
        await pilot.press("enter")
        await until(pilot, lambda: screen.preview is not None)
        assert options(screen) == [
            "conversation and files",
            "conversation only",
            "files only",
            "fork from here (a new session)",
        ]
        assert [(c.path, c.change) for c in screen.preview.changed] == [("made.txt", "deleted")]
        assert "-made" in str(screen.query_one("#rewind-preview").render())
        assert (workdir / "made.txt").exists(), "nothing is restored before the choice"
        await pilot.press("enter")

        await until(pilot, lambda: not (workdir / "made.txt").exists(), timeout=10)
        await until(pilot, lambda: users(app) == ["say hi"], timeout=10)
        assert app.view.query_one(PromptInput).text == "make a file"

        app.view.query_one(PromptInput).clear()
        await pilot.press(*"/rewind", "enter")
        await until(pilot, lambda: isinstance(app.screen, RewindScreen) and app.screen.loaded)
        assert options(app.screen)[0] == "↶ undo the last rewind (files included)"
        await pilot.press("enter")
        await until(pilot, lambda: (workdir / "made.txt").exists(), timeout=10)
        await until(pilot, lambda: users(app) == ["say hi", "make a file"], timeout=10)


async def test_rewind_while_running_asks_then_interrupts_first(provider, app) -> None:  # type: ignore[no-untyped-def]
    provider.add(Turn(text="one"), Turn(hold=True, text="slow"))
    async with app.run_test() as pilot:
        await pilot.press(*"first", "enter")
        await idle(pilot, app)
        await pilot.press(*"second", "enter")
        await provider.wait_for("held")
        await until(pilot, lambda: app.view.is_active)
        app.view.query_one(PromptInput).clear()
        await app.run_action("rewind")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.view.is_active, "no means nothing happens"
        await app.run_action("rewind")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, RewindScreen) and app.screen.loaded, timeout=10)
        assert not app.view.is_active
        assert [o.split("  ")[0] for o in options(app.screen)] == ["second", "first"]


async def test_fork_from_the_rewind_list_and_with_slash_fork(provider, app, runtime) -> None:  # type: ignore[no-untyped-def]
    provider.add(Turn(text="one"), Turn(text="two"), Turn(text="in the fork"))
    async with app.run_test() as pilot:
        for text in ("first", "second"):
            await pilot.press(*text, "enter")
            await idle(pilot, app)
        await until(pilot, lambda: users(app) == ["first", "second"])
        parent = app.view.session_id

        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, RewindScreen) and app.screen.loaded)
        await pilot.press("enter", "down", "down", "down", "enter")  # "second", then "fork from here"
        await until(pilot, lambda: app.view.session_id != parent and users(app) == ["first"], timeout=10)
        child = app.view.session_id
        assert app.view.query_one(PromptInput).text == "second"
        assert (await runtime.sessions.get(child)).parent_id == parent
        await pilot.press("enter")  # send the edited prompt in the fork
        await idle(pilot, app)
        await until(pilot, lambda: users(app) == ["first", "second"])
        assert [m.kind for m in await runtime.sessions.messages(parent)] == ["user", "assistant", "user", "assistant"]

        await pilot.press(*"/fork", "enter")
        await until(
            pilot, lambda: app.view.session_id not in (parent, child) and users(app) == ["first", "second"], timeout=10
        )
        assert (await runtime.sessions.get(app.view.session_id)).parent_id == child


async def test_slash_export_writes_markdown_next_to_the_session(provider, app, workdir) -> None:  # type: ignore[no-untyped-def]
    provider.add(Turn(text="an answer"))
    async with app.run_test() as pilot:
        await pilot.press(*"a question", "enter")
        await idle(pilot, app)
        await pilot.press(*"/export", "enter")
        path = workdir / f"agent-tui-{app.view.session_id}.md"
        await until(pilot, lambda: path.exists(), timeout=10)
        assert "## User\n\na question" in path.read_text() and "an answer" in path.read_text()
        await until(pilot, lambda: any(str(path) in str(n.message) for n in app._notifications))


async def test_rename_and_delete_from_the_picker_and_slash_rename(provider, app, runtime, workdir) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets import Input

    from agent_tui.tui.screens.picker import SessionPicker
    from agent_tui.tui.screens.rename import RenameScreen

    provider.add(Turn(text="one"), Turn(text="two"))
    async with app.run_test() as pilot:
        await pilot.press(*"first session", "enter")
        await idle(pilot, app)
        first = app.view.session_id
        await pilot.press(*"/rename  Better name ", "enter")
        await until(pilot, lambda: any("renamed: Better name" in str(n.message) for n in app._notifications))
        assert (await runtime.sessions.get(first)).title == "Better name"
        await app.run_action("new_session")
        await pilot.press(*"second session", "enter")
        await idle(pilot, app)
        second = app.view.session_id

        await app.run_action("resume")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == 2)
        picker = app.screen
        assert [r.id for r in picker.rows] == [second, first]
        await pilot.press("down", "f2")
        await until(pilot, lambda: isinstance(app.screen, RenameScreen))
        app.screen.query_one(Input).value = "Renamed in the picker"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await until(pilot, lambda: [r.title for r in picker.rows] == ["Renamed in the picker", "second session"])

        await pilot.press("ctrl+d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        assert len(await runtime.sessions.list(location=workdir)) == 2, "no: nothing is deleted"
        await pilot.press("down", "ctrl+d")  # the session on screen
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, (SessionPicker, ConfirmScreen)), timeout=10)
        assert [s.id for s in await runtime.sessions.list(location=workdir)] == [first]
        assert app.view.session_id is None, "the deleted session left the screen for a new one"


async def test_esc_then_a_key_then_esc_is_not_a_double_esc(provider, app) -> None:  # type: ignore[no-untyped-def]
    """Esc Esc is two Esc keys in a row: an Esc that closed nothing, a typed key, another Esc stays in the prompt."""
    provider.add(Turn(text="hello"))
    async with app.run_test() as pilot:
        await pilot.press(*"say hi", "enter")
        await provider.wait_for("completed", timeout=30)
        await idle(pilot, app)
        await pilot.press("escape", "x", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindScreen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, RewindScreen))


async def test_with_snapshots_off_the_list_and_the_rewind_name_the_call_never_nothing_changed(  # type: ignore[no-untyped-def]
    provider, workdir, clock
) -> None:
    cli = {"model": MODEL, "api_base": provider.openai_base, "api_key": "test-key", "snapshots": {"enabled": False}}
    provider.add(
        Turn(tool_calls=[ScriptToolCall(id="call_1", name="bash", arguments={"command": "echo made > made.txt"})]),
        Turn(text="made it"),
    )
    async with await Runtime.open(lambda location: load_settings(location, cli=cli), permission_policy="allow") as rt:
        services = TuiServices(sessions=rt.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST)
        app = AgentApp(services, start=StartMode(), watch_themes=False)
        async with app.run_test() as pilot:
            await pilot.press(*"make a file", "enter")
            await until(pilot, lambda: (workdir / "made.txt").exists(), timeout=30)
            await idle(pilot, app)
            screen, shown = await preview_the_last_prompt(pilot, app)
            assert "bash call_1 (`echo made > made.txt`): snapshots are off" in shown, shown
            assert "nothing would change" not in shown
            await pilot.press("down", "down", "enter")  # files only
            await until(pilot, lambda: any("rewind failed" in str(n.message) for n in app._notifications), timeout=10)
            said = [str(n.message) for n in app._notifications if "rewind" in str(n.message)]
            assert said == [f"rewind failed: {screen.preview.refusal}"] and "no file changed" not in said[0]
            assert (workdir / "made.txt").read_text() == "made\n"


async def test_what_a_files_rewind_leaves_is_named_in_the_list_and_the_notice(provider, app, workdir, tmp_path) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path / "elsewhere.txt"
    command = f"echo made > made.txt && echo out > {elsewhere}"
    provider.add(
        Turn(tool_calls=[ScriptToolCall(id="call_1", name="bash", arguments={"command": command})]),
        Turn(text="made it"),
    )
    async with app.run_test() as pilot:
        await pilot.press(*"make files", "enter")
        await until(pilot, lambda: elsewhere.exists(), timeout=30)
        await idle(pilot, app)
        screen, shown = await preview_the_last_prompt(pilot, app)
        assert f"would not be restored (1):\n  bash call_1 ({elsewhere}): outside the session's directory" in shown
        assert "files that would change (1):" in shown and "made.txt" in shown
        await pilot.press("down", "down", "enter")  # files only
        await until(pilot, lambda: not (workdir / "made.txt").exists(), timeout=10)
        await until(pilot, lambda: any(str(n.message).startswith("rewound") for n in app._notifications))
        (said,) = [str(n.message) for n in app._notifications if str(n.message).startswith("rewound")]
        assert said.startswith("rewound: 1 file(s) changed: made.txt (deleted); not restored: bash call_1 (")
        assert str(elsewhere) in said and elsewhere.read_text() == "out\n"


async def preview_the_last_prompt(pilot, app):  # type: ignore[no-untyped-def]
    """Esc Esc, then Enter on the newest prompt: the screen and its files preview as shown."""
    await pilot.press("escape", "escape")
    await until(pilot, lambda: isinstance(app.screen, RewindScreen) and app.screen.loaded)
    screen = app.screen
    await pilot.press("enter")
    await until(pilot, lambda: screen.preview is not None)
    return screen, str(screen.query_one("#rewind-preview").render())
