"""The picker's "import from…": the other agents' sessions for this directory, Enter imports one and opens it.

Claude Code's, Codex's, Gemini CLI's and opencode's sessions kept for the location (``agent-tui import
--from`` finds the same ones) are listed newest first with their first prompt,
date and size, read from each file's first lines only. Enter imports the
highlighted one as ``agent-tui import --from`` does (a session imported before
is opened, not imported twice) and dismisses with its id; the report's notes
come up as one notice. A file that cannot be read says why and nothing changes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.humanize import relative_time
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.status import short_path


def _size(size: int) -> str:
    return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} B"


def _agents() -> str:
    """The agents whose sessions are listed, by name: "A, B or C" (the formats this build reads)."""
    from agent_tui.core.api import FOREIGN_FORMATS

    *rest, last = FOREIGN_FORMATS.values()
    return f"{', '.join(rest)} or {last}" if rest else last


def _found(location: str) -> list[Any]:
    """Every agent's session files for ``location``, described, newest first (runs in a thread)."""
    from agent_tui.core.api import FOREIGN_FORMATS, describe_foreign_session, foreign_sessions

    home, where = Path.home(), Path(location)
    files = [
        describe_foreign_session(agent, p) for agent in FOREIGN_FORMATS for p in foreign_sessions(agent, where, home)
    ]
    return sorted(files, key=lambda f: f.modified_ms, reverse=True)


class ImportScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "cancel", "close"),
        Binding("enter", "import_highlighted", "import", priority=True),
    ]

    def __init__(self, services: TuiServices) -> None:
        super().__init__()
        self.services = services
        self.files: list[Any] = []
        self.loaded = False  # tests wait on it

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(Text(f"Import from… · {short_path(self.services.location)}", style="bold"))
            yield OptionList(id="picker-list")
            yield Static("enter import and open · esc back", id="picker-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.run_worker(self._load(), exclusive=True, group="import-list")

    async def _load(self) -> None:
        self.files = await asyncio.to_thread(_found, self.services.location)
        now = self.services.clock.now_ms()
        options = [
            Option(
                Text.assemble(
                    (f"{f.label:<12}", "bold"),
                    f.title,
                    (f"  {relative_time(f.modified_ms, now)} · {_size(f.size)}", "dim"),
                    no_wrap=True,
                    overflow="ellipsis",
                ),
                id=str(f.path),
            )
            for f in self.files
        ]
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.add_options(
            options or [Option(Text(f"no {_agents()} sessions for this directory", style="dim"), disabled=True)]
        )
        listing.highlighted = 0 if self.files else None
        self.loaded = True

    def action_import_highlighted(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None and index < len(self.files):
            self.run_worker(self._import(self.files[index]), exclusive=True, group="import-one")

    async def _import(self, found: Any) -> None:
        try:
            from agent_tui.core.api import load_foreign_session

            text = await asyncio.to_thread(load_foreign_session, found.agent, found.path)
            sessions = await self.services.ready()
            outcome = await sessions.transfer.import_foreign(found.agent, text, path=str(found.path))
        except Exception as error:  # unreadable, an unknown version, a bad line: the one line, nothing written
            self.app.notify(f"import failed: {error}", severity="error")
            return
        notes = outcome.imported.notes
        said = "imported" if outcome.created else "imported before"
        self.app.notify(f"{said} from {found.label}" + (f" · {len(notes)} notes in the transcript" if notes else ""))
        self.dismiss(outcome.session_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
