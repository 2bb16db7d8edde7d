"""``/context``: what the next request would hold, part by part, on one modal page.

The app measures in a worker and hands the result to :meth:`ContextScreen.show`
(or the reason it could not to :meth:`ContextScreen.failed`); until then the
page says it is measuring, and Esc closes it at any time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from agent_tui.core.api import ContextBreakdown


def context_table(breakdown: ContextBreakdown) -> Table:
    """The breakdown's rows: label, estimated tokens, share of the window."""
    table = Table.grid(padding=(0, 2))
    table.add_column()
    table.add_column(justify="right")
    table.add_column(justify="right", style="dim")
    for label, tokens, share in breakdown.rows():
        table.add_row(label, "unknown" if tokens is None else f"{tokens:,}", share)
    return table


class ContextScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "close")]

    def __init__(self) -> None:
        super().__init__()
        self.breakdown: ContextBreakdown | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static("Next request  ·  Esc closes", classes="help-title", id="context-title")
            yield Static("Measuring…", id="context-table")
            yield Static("", id="context-note")

    def show(self, breakdown: ContextBreakdown) -> None:
        self.breakdown = breakdown
        who = breakdown.session_id or "a first request here"
        self._update("#context-title", f"Next request of {who}  ·  {breakdown.model or 'no model set'}  ·  Esc closes")
        self._update("#context-table", context_table(breakdown))
        self._update("#context-note", f"Tokens are estimated ({breakdown.estimate}).")

    def failed(self, reason: str) -> None:
        self._update("#context-table", f"Could not measure the next request: {reason}")

    def _update(self, selector: str, content: object) -> None:
        try:
            self.query_one(selector, Static).update(content)  # type: ignore[arg-type]
        except NoMatches:  # closed before the measurement came back
            pass
