"""Pick one name from a list, typing to narrow it: ``/theme`` and ``/model`` without an argument.

Up/Down move, Enter picks, Esc cancels. ``preview`` is called with each highlighted name (the
theme picker shows the theme live) and with the starting one again when cancelled; ``free`` lets
Enter take the typed text when nothing in the list matches it (a model name not seen yet).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.vocab.terminal_text import inert


class ChooseScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
    ]

    DEFAULT_CSS = """
    ChooseScreen { align: center middle; }
    ChooseScreen #choose { width: 60; max-width: 90%; height: auto; max-height: 80%;
        border: round $primary; background: $surface; padding: 0 1; }
    ChooseScreen #choose-list { height: auto; max-height: 20; border: none; background: $surface; }
    ChooseScreen .help-title { text-style: bold; color: $primary; }
    ChooseScreen #choose-keys { color: $text-muted; }
    """

    def __init__(
        self,
        title: str,
        names: Sequence[str],
        current: str | None = None,
        *,
        preview: Callable[[str], object] | None = None,
        free: bool = False,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.names = list(names)
        self.current = current
        self.preview = preview
        self.free = free
        self.shown: list[str] = list(self.names)

    def compose(self) -> ComposeResult:
        with Vertical(id="choose"):
            yield Static(self.title_text, classes="help-title")
            yield Input(placeholder="type to filter" + (" or a new name" if self.free else ""), id="choose-filter")
            yield OptionList(id="choose-list")
            yield Static("↑↓ move  ·  Enter picks  ·  Esc cancels", id="choose-keys")

    def on_mount(self) -> None:
        self._fill("")
        self.query_one(Input).focus()

    def _fill(self, typed: str) -> None:
        listing = self.query_one(OptionList)
        wanted = typed.strip().lower()
        self.shown = [name for name in self.names if wanted in name.lower()]
        listing.clear_options()
        listing.add_options(Option(("● " if n == self.current else "  ") + inert(n), id=n) for n in self.shown)
        if self.shown:
            listing.highlighted = self.shown.index(self.current) if self.current in self.shown else 0

    @on(Input.Changed)
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(OptionList.OptionHighlighted)
    def _preview(self, event: OptionList.OptionHighlighted) -> None:
        if self.preview is not None and event.option.id is not None:
            self.preview(event.option.id)

    def action_move(self, by: int) -> None:
        listing = self.query_one(OptionList)
        if self.shown:
            listing.highlighted = ((listing.highlighted or 0) + by) % len(self.shown)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        highlighted = self.query_one(OptionList).highlighted
        if self.shown and highlighted is not None:
            self.dismiss(self.shown[highlighted])
        elif self.free and event.value.strip():
            self.dismiss(event.value.strip())

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        if self.preview is not None and self.current is not None:
            self.preview(self.current)
        self.dismiss(None)
