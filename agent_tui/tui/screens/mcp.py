"""``/mcp``: the MCP servers of this location, their state and their tools, then what each logged lately,
on one modal page."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class McpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "close")]

    def __init__(self, rows: list[tuple[str, str, str]], logs: list[tuple[str, list[str]]] | None = None) -> None:
        super().__init__()
        self.rows = rows
        self.logs = logs or []
        """(server, its recent log lines): a server's log is shown here, not on the transcript."""

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        table.add_column()
        for name, state, tools in self.rows:
            table.add_row(name, state, tools)
        with VerticalScroll(id="help"):
            yield Static("MCP servers  ·  Esc closes", classes="help-title")
            if self.rows:
                yield Static(table, id="mcp-servers")
            else:
                yield Static("No MCP servers configured here. Add [mcp.servers.NAME] to config.toml.", id="mcp-servers")
            for name, lines in self.logs:
                yield Static(f"{name} · recent log", classes="help-title")
                yield Static("\n".join(lines), markup=False, classes="mcp-log")
