"""``/usage``: what the session spent, with its subagents' sessions, per model and per agent.

The app reads ``Sessions.usage`` (one query over the ``step_usage`` ledger) in a worker and hands
the result to :meth:`UsageScreen.show`; a cost the price was unknown for reads "unknown", never
$0.00, so a page of unpriced models does not look free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from agent_tui.core.api import SessionUsage, UsageRow


def usage_table(heading: str, rows: list[UsageRow]) -> Table:
    """One line per group: its name, tokens in, out, cached, reasoning, steps and cost."""
    table = Table(box=None, padding=(0, 2), show_edge=False, header_style="bold")
    table.add_column(heading)
    for title in ("input", "output", "cache read", "reasoning", "steps", "cost"):
        table.add_column(title, justify="right")
    for row in rows:
        table.add_row(
            Text(row.key or "(none)"),  # a model or agent name is shown as text, never as markup
            f"{row.input_tokens:,}",
            f"{row.output_tokens:,}",
            f"{row.cache_read_tokens:,}",
            f"{row.reasoning_tokens:,}",
            f"{row.steps:,}",
            row.cost_text(),
        )
    return table


class UsageScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "close")]

    def __init__(self) -> None:
        super().__init__()
        self.usage: SessionUsage | None = None
        self.note = "Reading…"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static("Usage  ·  Esc closes", classes="help-title", id="usage-title")
            yield Static(self.note, id="usage-total")
            yield Static("", id="usage-models")
            yield Static("", id="usage-agents")

    def on_mount(self) -> None:
        """The figures (or why there are none) may have come back before the page was mounted."""
        if self.usage is not None:
            self.show(self.usage)
        else:
            self._update("#usage-total", self.note)

    def show(self, usage: SessionUsage) -> None:
        self.usage = usage
        total = usage.total
        others = usage.sessions - 1
        subagents = f" and {others} subagent session{'s' * (others != 1)}" if others else ""
        self._update("#usage-title", f"Usage of {usage.session_id}{subagents}  ·  Esc closes")
        self._update(
            "#usage-total",
            f"{total.input_tokens:,} tokens in, {total.output_tokens:,} out "
            f"({total.cache_read_tokens:,} cached, {total.reasoning_tokens:,} reasoning) "
            f"in {total.steps:,} steps  ·  cost {total.cost_text()}",
        )
        self._update("#usage-models", usage_table("model", usage.by_model))
        self._update("#usage-agents", usage_table("agent", usage.by_agent))

    def empty(self, reason: str) -> None:
        self.note = reason
        self._update("#usage-total", reason)

    def _update(self, selector: str, content: object) -> None:
        try:
            self.query_one(selector, Static).update(content)  # type: ignore[arg-type]
        except NoMatches:  # closed before the figures came back
            pass
