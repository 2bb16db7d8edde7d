"""Ctrl+C in the order a person means it: copy, stop the agent, clear the prompt, and only then quit.

Claude Code and Codex both stop a running agent on Ctrl+C, and people press it out of habit to
stop one; quitting on it instead lost the answer being watched. So a press copies a selection if
there is one; else interrupts the session on screen while it runs (as Esc does; the draft in the
prompt stays, ready to send as the next steer); else clears a prompt that has text; else arms a
quit that a second press within ``timings.quit_window_s`` carries out. A session whose interrupt
is already under way counts as idle here, so a wedged one can still be left with two presses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TextArea

from agent_tui.tui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from agent_tui.tui.app import AgentApp


class CtrlC:
    """The app's Ctrl+C; ``armed_at`` is the clock reading of the press that armed the quit."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self.armed_at: int | None = None

    async def press(self) -> None:
        app = self.app
        if self._copy():
            return
        view = app.view
        if view.is_active and not view.interrupting:
            self.armed_at = None
            await view.interrupt()
            return
        prompt = view.query_one(PromptInput)
        if app.screen is app.screen_stack[0] and prompt.text:
            self.armed_at = None  # a quit needs two presses on an empty prompt
            prompt.clear()
            return
        now = app.services.clock.now_ms()
        window = app.services.timings.quit_window_s
        if self.armed_at is not None and now - self.armed_at <= window * 1000:
            await app.shutdown()
            return
        self.armed_at = now
        app.notify("press Ctrl+C again to quit", timeout=window)

    def _copy(self) -> bool:
        """The selection (the focused text area's, else the screen's) to the clipboard, if any."""
        app = self.app
        focused = app.focused
        selected = focused.selected_text if isinstance(focused, TextArea) else None
        selected = selected or app.screen.get_selected_text()
        if not selected:
            return False
        app.copy_to_clipboard(selected)
        app.screen.clear_selection()
        app.notify("copied", timeout=1.5)
        return True
