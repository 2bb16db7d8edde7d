"""A tool call's whole output, full screen, read from the keyboard (``o`` on a tool block, Alt+O the latest).

The transcript folds output and cuts its unfolded text at ``OUTPUT_PREVIEW_CHARS``;
here all of it scrolls in a ``RichLog`` (the line API: only the rows on screen are
drawn, so a long log pages as fast as a short one): ↑↓, PageUp/PageDown, Home/End; Esc
or ``q`` closes, ``p`` hands it to ``$PAGER`` (``less -R`` when unset) with the app
suspended and without the secrets a ``bash`` command is not given either. A call still running shows its live tail (the newest ``LIVE_OUTPUT_CHARS``)
and follows it as it grows, saying so in the header, until its result replaces it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import RichLog, Static

from agent_tui.tui.mcp_view import tool_label
from agent_tui.tui.transcript_blocks import ToolBlock, ToolState
from agent_tui.vocab.terminal_text import inert

REFRESH_S = 0.25  # how often a running call's output is looked at again
DEFAULT_PAGER = "less -R"


def is_running(block: ToolBlock) -> bool:
    return block.shown_state in (ToolState.INPUT, ToolState.RUNNING)


def shown_output(block: ToolBlock) -> str:
    """The settled result, else the live tail while it runs."""
    return block.live_output if is_running(block) and not block.output else block.output


class OutputView(Screen[None]):
    DEFAULT_CSS = """
    OutputView { background: $surface; }
    #output-head { height: 1; background: $panel; padding: 0 1; }
    #output-body { height: 1fr; border: none; background: $surface; padding: 0 1; }
    #output-keys { height: 1; color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "close"),
        Binding("p", "pager", "pager", tooltip="in the output view: open the output in $PAGER (less -R when unset)"),
    ]

    def __init__(self, block: ToolBlock, current: Callable[[], ToolBlock | None] = lambda: None) -> None:
        """``current`` finds the block again if the transcript was folded anew since (else ``block`` is kept)."""
        super().__init__()
        self.block = block
        self._current = current
        self._shown: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="output-head")
        yield RichLog(id="output-body", wrap=True, markup=False, highlight=False, auto_scroll=False)
        yield Static("↑↓ PgUp PgDn Home End scroll · p pager · esc/q close", id="output-keys")

    def on_mount(self) -> None:
        self.query_one(RichLog).focus()
        self._refresh()
        self._timer = self.set_interval(REFRESH_S, self._refresh, pause=not is_running(self.block))

    @property
    def text(self) -> str:
        return shown_output(self.block)

    def _refresh(self) -> None:
        self.block = self._current() or self.block
        running = is_running(self.block)
        text = self.text
        if text != self._shown:
            body = self.query_one(RichLog)
            following = self._shown is None and running or body.scroll_offset.y >= body.max_scroll_y
            body.clear()
            body.write(Text.from_ansi(inert(text, keep_sgr=True)) if text else Text("(no output)", style="dim"))
            if following and running:
                body.scroll_end(animate=False, immediate=True)
            self._shown = text
        self.query_one("#output-head", Static).update(self._head(running, text))
        if not running and hasattr(self, "_timer"):
            self._timer.pause()

    def _head(self, running: bool, text: str) -> Text:
        block = self.block
        head = Text()
        head.append(inert(tool_label(block.name or "tool")), style="bold")
        if block.summary:
            head.append(f"  {inert(block.summary)}")
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if running:
            head.append(f"  ● live: the last {lines} lines so far, updating", style="bold")
        else:
            head.append(f"  {lines} line{'' if lines == 1 else 's'}", style="dim")
        return head

    def action_close(self) -> None:
        self.dismiss(None)

    def action_pager(self) -> None:
        """The output in ``$PAGER`` (a private temporary file, removed after), the app suspended meanwhile;
        the pager gets the environment without agent-tui's and the providers' secrets, as ``bash`` does."""
        from agent_tui.core.api import shell_environment

        command = shlex.split(os.environ.get("PAGER") or DEFAULT_PAGER)
        handle, name = tempfile.mkstemp(prefix="agent-tui-output-", suffix=".txt")  # 0600
        path = Path(name)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(inert(self.text, keep_sgr=True))
            with self.app.suspend():
                subprocess.run([*command, str(path)], check=False, env=shell_environment(os.environ))
        except SuspendNotSupported:
            self.notify("no pager here: this terminal cannot be handed over", severity="warning")
        except OSError as error:
            self.notify(f"pager {command[0]!r} did not start: {error}", severity="error")
        finally:
            path.unlink(missing_ok=True)
