"""Pilot over the real store: sessions imported from Claude Code, Codex and opencode in the picker and the transcript."""

from __future__ import annotations

from textual.screen import ModalScreen
from textual.widgets import Collapsible

from agent_tui.tui.screens.picker import SessionPicker
from agent_tui.tui.widgets.block_widgets import CompactionDivider, InstructionNote, ReasoningView, UserMessage
from agent_tui.tui.widgets.tool_block import ToolCallView
from tests.fakes.foreign_homes import CLAUDE, CLAUDE_SUBAGENT, CODEX, claude_home, codex_home, opencode_home

from .conftest import import_highlighted, open_import_from, until
from .test_app_store import app_for, real  # noqa: F401 - the fixture


async def test_the_picker_finds_imported_sessions_and_opens_their_transcript(real, workdir, clock) -> None:  # noqa: F811
    sessions, _ = real
    made = {}
    for agent, path in (("claude", CLAUDE), ("codex", CODEX)):
        made[agent] = (
            await sessions.transfer.import_foreign(
                agent, path.read_text(encoding="utf-8"), path=str(path), location=workdir
            )
        ).session_id
    app = app_for(sessions, workdir, clock)
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == 2)
        picker = app.screen
        await pilot.press(*"pixel")
        await until(pilot, lambda: len(picker.rows) == 2)
        await pilot.press(*" zebra")
        await until(pilot, lambda: picker.rows == [])
        for _ in " zebra":
            await pilot.press("backspace")
        await until(pilot, lambda: len(picker.rows) == 2)
        index = [r.id for r in picker.rows].index(made["claude"])
        picker.query_one("OptionList").highlighted = index
        await pilot.press("enter")
        await until(pilot, lambda: app.view.session_id == made["claude"])
        await until(pilot, lambda: len(app.query(UserMessage)) == 2)
        tools = {view.block.call_id: view.block for view in app.query(ToolCallView)}
        assert (
            tools["call_edit01"].name == "apply_patch"
            and "*** Update File: main.py" in tools["call_edit01"].input["patch"]
        )
        assert tools["call_ls01"].name == "bash" and tools["call_todo01"].name == "todo"
        assert len(app.query(ReasoningView)) == 1 and len(app.query(CompactionDivider)) == 1
        (note,) = app.query(InstructionNote)
        assert note.block.text.startswith("[imported from Claude Code] context attachments")
        folded = note.query_one(Collapsible)
        assert (str(folded.title), folded.collapsed) == ("import note", False), "a note is in sight, not folded"


async def test_import_from_lists_this_directorys_foreign_sessions_and_opens_the_one_imported(  # noqa: F811
    real, workdir, clock, foreign_home
) -> None:
    from agent_tui.tui.screens.import_from import ImportScreen

    sessions, _ = real
    claude_home(foreign_home, workdir)
    codex_home(foreign_home, workdir)
    app = app_for(sessions, workdir, clock)
    async with app.run_test(size=(140, 50)) as pilot:
        await open_import_from(app, pilot)
        screen = app.screen
        assert sorted(f.label for f in screen.files) == ["Claude Code", "Codex"]
        assert all(f.title.startswith("FIXTURE-TASK: list the files") for f in screen.files)
        index = [f.agent for f in screen.files].index("claude")
        screen.query_one("OptionList").highlighted = index
        await import_highlighted(app, pilot)
        opened = app.view.session_id
        assert (await sessions.get(opened)).location == "/tmp/foreign-fixture-claude/proj"
        # the same session again: opened, not imported twice
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await pilot.press("ctrl+g")
        await until(pilot, lambda: isinstance(app.screen, ImportScreen) and app.screen.loaded)
        app.screen.query_one("OptionList").highlighted = [f.agent for f in app.screen.files].index("claude")
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, ModalScreen))
        assert app.view.session_id == opened
    assert len(await sessions.list(None)) == 1


async def test_an_imported_claude_subagent_opens_from_its_task_block(real, workdir, clock) -> None:  # noqa: F811
    from agent_tui.tui.app import StartMode
    from agent_tui.tui.screens.child_session import ChildSessionScreen

    sessions, _ = real
    path = next(CLAUDE_SUBAGENT.glob("*.jsonl"))
    outcome = await sessions.transfer.import_foreign(
        "claude", path.read_text(encoding="utf-8"), path=str(path), location=workdir
    )
    (child,) = await sessions.children(outcome.session_id)
    app = app_for(sessions, workdir, clock, StartMode(session_id=outcome.session_id))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: any(w.block.name == "task" for w in app.view.query(ToolCallView)))
        block = next(w for w in app.view.query(ToolCallView) if w.block.name == "task")
        await pilot.press("alt+s")  # the newest task block, from the keyboard
        await until(pilot, lambda: block.has_focus)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChildSessionScreen))
        screen = app.screen
        assert isinstance(screen, ChildSessionScreen) and screen.session_id == child.id
        await until(pilot, lambda: [w.block.name for w in screen.query(ToolCallView)] == ["bash"])
        assert "List project files" in screen.title_line


async def test_import_from_lists_opencodes_sessions_from_its_database_and_opens_the_one_imported(  # noqa: F811
    real, workdir, clock, foreign_home
) -> None:
    sessions, _ = real
    opencode_home(foreign_home, workdir)
    app = app_for(sessions, workdir, clock)
    async with app.run_test(size=(140, 50)) as pilot:
        await open_import_from(app, pilot)
        (found,) = app.screen.files
        assert (found.label, found.title) == ("opencode", "Edit main.py to print hello, world")
        tools = await import_highlighted(app, pilot)
        assert tools["call_write01"].name == "apply_patch" and tools["call_glob01"].name == "glob"
        assert len(app.query(CompactionDivider)) == 1 and len(app.query(ReasoningView)) == 1
        (note,) = app.query(InstructionNote)
        assert note.block.text.startswith("[imported from opencode] text opencode wrote")
        opened = app.view.session_id
    assert (await sessions.get(opened)).location == str(workdir)
