"""Pilot over the real store: Ctrl+G in the picker imports a Gemini CLI session kept for this directory and opens it."""

from __future__ import annotations

from textual.screen import ModalScreen

from agent_tui.tui.widgets.block_widgets import CompactionDivider, InstructionNote, ReasoningView, UserMessage
from agent_tui.tui.widgets.tool_block import ToolCallView

from .test_app import until
from .test_app_imported import _open_import_from
from .test_app_store import app_for, real  # noqa: F401 - the fixture


async def test_import_from_lists_the_gemini_session_and_opens_its_transcript(  # noqa: F811
    real, workdir, clock, tmp_path, monkeypatch
) -> None:
    from tests.commands.test_import_gemini_cmd import _gemini_home

    sessions, _ = real
    home = tmp_path / "home"
    _gemini_home(home, workdir)
    monkeypatch.setenv("HOME", str(home))
    app = app_for(sessions, workdir, clock)
    async with app.run_test(size=(140, 60)) as pilot:
        await _open_import_from(app, pilot)
        (found,) = app.screen.files
        assert (found.label, found.title) == (
            "Gemini CLI",
            "FIXTURE-TASK: list the files, change main.py to print hello, world, and describe pic.png",
        )
        await pilot.press("enter")
        await until(pilot, lambda: app.view.session_id is not None and not isinstance(app.screen, ModalScreen))
        assert (await sessions.get(app.view.session_id)).location == str(workdir)
        await until(pilot, lambda: len(app.query(UserMessage)) == 2)
        tools = {view.block.call_id: view.block for view in app.query(ToolCallView)}
        edit, write = tools["replace__call_edit01"], tools["write_file__call_write01"]
        assert edit.name == "apply_patch" and "*** Update File: main.py" in edit.input["patch"]
        assert write.name == "apply_patch" and "*** Add File: notes.md" in write.input["patch"]
        assert tools["run_shell_command__call_ls01"].name == "bash"
        assert len(app.query(ReasoningView)) == 1 and len(app.query(CompactionDivider)) == 1
        (note,) = app.query(InstructionNote)
        assert note.block.text.startswith("[imported from Gemini CLI] Gemini CLI's own session context")
