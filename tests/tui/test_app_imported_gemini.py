"""Pilot over the real store: Ctrl+G in the picker imports a Gemini CLI session kept for this directory and opens it."""

from __future__ import annotations

from agent_tui.tui.widgets.block_widgets import CompactionDivider, InstructionNote, ReasoningView
from tests.fakes.foreign_homes import gemini_home

from .conftest import import_highlighted, open_import_from
from .test_app_store import app_for, real  # noqa: F401 - the fixture


async def test_import_from_lists_the_gemini_session_and_opens_its_transcript(  # noqa: F811
    real, workdir, clock, foreign_home
) -> None:
    sessions, _ = real
    gemini_home(foreign_home, workdir)
    app = app_for(sessions, workdir, clock)
    async with app.run_test(size=(140, 60)) as pilot:
        await open_import_from(app, pilot)
        (found,) = app.screen.files
        assert (found.label, found.title) == (
            "Gemini CLI",
            "FIXTURE-TASK: list the files, change main.py to print hello, world, and describe pic.png",
        )
        tools = await import_highlighted(app, pilot)
        assert (await sessions.get(app.view.session_id)).location == str(workdir)
        edit, write = tools["replace__call_edit01"], tools["write_file__call_write01"]
        assert edit.name == "apply_patch" and "*** Update File: main.py" in edit.input["patch"]
        assert write.name == "apply_patch" and "*** Add File: notes.md" in write.input["patch"]
        assert tools["run_shell_command__call_ls01"].name == "bash"
        assert len(app.query(ReasoningView)) == 1 and len(app.query(CompactionDivider)) == 1
        (note,) = app.query(InstructionNote)
        assert note.block.text.startswith("[imported from Gemini CLI] Gemini CLI's own session context")
