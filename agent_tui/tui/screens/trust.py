"""Trust this project? The question a project config with powers gets when the app opens.

A project's own config may allow commands, start MCP servers and choose where
model requests go only once trusted (``core.trust``); until then the app runs
with the rest of it. One key answers: ``t`` trusts (recorded for this user,
pinned to what the config grants now), ``n`` or Esc goes on without.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.vocab.terminal_text import inert


@dataclass(frozen=True)
class TrustQuestion:
    config: str
    powers: tuple[str, ...]
    before: tuple[str, ...] | None = None
    """What the user trusted before, when the config has changed since; None: never trusted."""

    def text(self) -> Text:
        text = Text()
        if self.before is None:
            text.append(f"This project's config ({inert(self.config)}) wants to:\n", style="bold")
            for line in self.powers:
                text.append(f"  • {inert(line)}\n")
        else:
            text.append(f"This project's config ({inert(self.config)}) changed since you trusted it:\n", style="bold")
            for line in self.powers:
                if line not in self.before:
                    text.append(f"  + {inert(line)}\n", style="green")
            for line in self.before:
                if line not in self.powers:
                    text.append(f"  - {inert(line)}\n", style="red")
        text.append("Trust it? Until you do, agent-tui uses the rest of that config without these.")
        return text


class TrustScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("t", "answer(True)", "trust", priority=True),
        Binding("n,escape", "answer(False)", "not now", priority=True),
    ]

    def __init__(self, question: TrustQuestion) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.question.text(), id="trust-question")
            yield Static("t trust this project · n not now", id="confirm-keys")

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)
