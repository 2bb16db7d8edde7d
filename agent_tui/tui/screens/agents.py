"""``/agents``: every agent here (name, mode, description, where it is defined); Enter on a primary one selects it.

The rows are ``core.api.agent_listing``'s. A subagent cannot be selected (the
``task`` tool runs it), so Enter on one only says so; Esc closes. The screen
returns the chosen agent's name and the app switches to it as ``/agent NAME`` does.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.vocab.terminal_text import inert

KEYS = "Enter selects a primary agent  ·  Esc closes"


def agent_option(row: Any, current: str | None) -> Text:
    """``● build  primary  The default agent…`` over ``built-in`` (dim); ● marks the current agent."""
    mark = "● " if row.name == current else "  "
    return Text.assemble(
        (mark, "bold"),
        (inert(row.name), "bold"),
        f"  {row.mode}",
        ("" if row.primary else "  (run by the task tool)", "dim"),
        "\n    ",
        inert(row.description) or Text("no description", style="dim"),
        "\n    ",
        (inert(row.source), "dim"),
    )


class AgentsScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape,q", "dismiss", "close")]

    DEFAULT_CSS = """
    AgentsScreen { align: center middle; }
    AgentsScreen #agents { width: 90%; max-width: 120; height: auto; max-height: 80%;
        border: round $primary; background: $surface; padding: 0 1; }
    AgentsScreen #agents-list { height: auto; max-height: 30; border: none; background: $surface; }
    AgentsScreen .help-title { text-style: bold; color: $primary; }
    AgentsScreen #agents-keys { color: $text-muted; }
    """

    def __init__(self, rows: list[Any], problems: list[str], current: str | None) -> None:
        """``rows``: ``core.api.agent_listing``'s rows; ``problems``: the agent files left out."""
        super().__init__()
        self.rows = rows
        self.problems = problems
        self.current = current

    def compose(self) -> ComposeResult:
        options = [Option(agent_option(row, self.current), id=row.name) for row in self.rows]
        with Vertical(id="agents"):
            yield Static("Agents", classes="help-title")
            yield OptionList(*options, id="agents-list")
            if self.problems:
                yield Static(Text("\n".join(["Left out:", *map(inert, self.problems)]), style="yellow"))
            yield Static(KEYS, id="agents-keys")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        names = [row.name for row in self.rows]
        listing.highlighted = names.index(self.current) if self.current in names else 0
        listing.focus()

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        row = next(row for row in self.rows if row.name == message.option.id)
        if not row.primary:
            self.app.notify(f"{row.name} is a subagent: the agent hands it work with the task tool", timeout=4)
            return
        self.dismiss(row.name)
