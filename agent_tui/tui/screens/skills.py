"""``/skills``: the skills found here (name, where, description), and the SKILL.md files left out, on one modal page."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

EMPTY = (
    "No skills here. A skill is a folder with a SKILL.md (front matter: name, description) in "
    ".agent-tui/skills/, .agents/skills/ or .claude/skills/ of the project, or skills/ in the config dir."
)


class SkillsScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "close")]

    def __init__(self, rows: list[Any], problems: list[str], agent: str) -> None:
        """``rows``: ``core.api.skill_listing``'s rows (name, description, where, denied)."""
        super().__init__()
        self.rows = rows
        self.problems = problems
        self.agent = agent

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for row in self.rows:
            denied = Text(f"  (denied for {self.agent})", style="dim") if row.denied else ""
            table.add_row(row.name, Text.assemble(row.description, denied, "\n", Text(row.where, style="dim")))
        with VerticalScroll(id="help"):
            yield Static("Skills  ·  Esc closes", classes="help-title")
            yield Static(table if self.rows else EMPTY, id="skills")
            if self.problems:
                lines = Text("\n".join(["Left out:", *self.problems]), style="yellow")
                yield Static(lines, id="skill-problems")
