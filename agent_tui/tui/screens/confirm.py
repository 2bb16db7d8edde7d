"""A yes/no question as a small modal: y (or Enter) answers yes, n (or Esc) no."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y,enter", "answer(True)", "yes", priority=True),
        Binding("n,escape", "answer(False)", "no", priority=True),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(self.question, style="bold"))
            yield Static("y yes · n no", id="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
