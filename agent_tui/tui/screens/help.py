"""All keys and commands on one modal page (/help)."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.tui.commands import COMMANDS

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send (while running: steer into the next step)"),
    ("Tab", "queue until the turn ends (idle: send)"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "previous / next prompt (at the first / last line)"),
    ("PageUp / PageDown", "scroll the transcript"),
    ("Alt+Up", "edit the last queued input (withdrawn, then re-sent)"),
    ("Alt+W", "withdraw the last pending input"),
    ("Esc", "interrupt the running session (pending input stays)"),
    ("Ctrl+R", "session picker"),
    ("Ctrl+N", "new session"),
    ("Ctrl+P", "command palette"),
    ("Ctrl+C", "copy selection, else clear the prompt; twice quits"),
    ("Ctrl+End", "follow the newest output (or click the “new output below” bar)"),
    ("Ctrl+O", "unfold every tool output, reasoning and summary in view; again folds them"),
    ("F1", "this help"),
    ("y / a / n / m", "permission: once / always / reject / reject with message"),
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1", "dismiss", "close")]

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        for key, what in KEYS:
            table.add_row(key, what)
        table.add_row("", "")
        for spec in COMMANDS:
            table.add_row(f"/{spec.name}" + (f" {spec.arg}" if spec.arg else ""), spec.help)
        with VerticalScroll(id="help"):
            yield Static("Keys and commands  ·  Esc closes", classes="help-title")
            yield Static(table)
