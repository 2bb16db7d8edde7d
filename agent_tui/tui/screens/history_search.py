"""The prompt-history search (Ctrl+S in the prompt): type to filter, ↑↓ choose, Enter takes, Esc cancels.

Ctrl+R, the shells' key for it, opens the session picker here; Ctrl+S is zsh's forward
search and free in the prompt (Textual turns the terminal's XON/XOFF off). The filter is
the history's own (:meth:`PromptHistory.search`: every word, any case), newest first,
over the list in memory: no disk read per keystroke.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.tui.prompt_history import PromptHistory
from agent_tui.vocab.terminal_text import inert

SHOWN = 200  # rows listed at most (the newest matches)


def one_line(text: str) -> Text:
    """A prompt as one row: its lines joined by ⏎, cut with an ellipsis at the edge."""
    row = Text(no_wrap=True, overflow="ellipsis")
    for number, line in enumerate(inert(text).split("\n")):
        if number:
            row.append(" ⏎ ", style="dim")
        row.append(line)
    return row


class HistorySearch(ModalScreen[str | None]):
    DEFAULT_CSS = """
    HistorySearch { align: center middle; }
    #history-search {
        width: 90%; max-width: 120; height: auto; max-height: 80%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    #history-list { height: auto; max-height: 20; border: none; background: $surface; }
    #history-keys { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding("enter", "choose", "choose", priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("pagedown", "move(10)", show=False, priority=True),
        Binding("pageup", "move(-10)", show=False, priority=True),
    ]

    def __init__(self, history: PromptHistory) -> None:
        super().__init__()
        self.history = history
        self.matches: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="history-search"):
            yield Static(Text("Prompt history · this project", style="bold"))
            yield Input(placeholder="type to filter", id="history-query")
            yield OptionList(id="history-list")
            yield Static("↑↓ choose · enter put in the prompt · esc cancel", id="history-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._fill("")

    @on(Input.Changed)
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        self.matches = self.history.search(query)[:SHOWN]
        listed = self.query_one(OptionList)
        listed.clear_options()
        if self.matches:
            listed.add_options([Option(one_line(text)) for text in self.matches])
            listed.highlighted = 0
        else:
            listed.add_option(
                Option(Text("no prompt matches" if query else "no prompt yet", style="dim"), disabled=True)
            )

    @property
    def current(self) -> str | None:
        at = self.query_one(OptionList).highlighted
        return self.matches[at] if at is not None and at < len(self.matches) else None

    def action_move(self, by: int) -> None:
        if self.matches:
            listed = self.query_one(OptionList)
            listed.highlighted = max(0, min(len(self.matches) - 1, (listed.highlighted or 0) + by))

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.matches[event.option_index] if event.option_index < len(self.matches) else None)

    def action_choose(self) -> None:
        self.dismiss(self.current)

    def action_cancel(self) -> None:
        self.dismiss(None)
