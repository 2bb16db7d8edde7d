"""The session picker: search, a paged list, Enter opens, Esc closes, Ctrl+N starts anew, Ctrl+G imports
another agent's session (``screens/import_from.py``).

Rows are fetched from the store a page at a time (``list(limit, offset)``), the
search goes to the store's full-text index, and typing is debounced, so the
picker stays fast however many sessions there are. Opened at launch
(``--resume``), it shows a first page peeked from the database file while the
facade still opens, and the facade's rows replace it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.humanize import relative_time
from agent_tui.tui.screens.confirm import ConfirmScreen
from agent_tui.tui.screens.rename import RenameScreen
from agent_tui.tui.services import CoreUnavailable, TuiServices
from agent_tui.tui.session_title import session_title
from agent_tui.tui.widgets.status import short_path
from agent_tui.vocab.terminal_text import inert

if TYPE_CHECKING:
    from agent_tui.tui.port import SessionsPort

PAGE = 50
NEW_SESSION = ""  # dismiss value for Ctrl+N


def row_text(
    summary: Any,
    now_ms: int,
    running: bool,
    asking: bool,
    show_location: bool,
    depth: int = 0,
    *,
    current: bool = False,
) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("⚑ " if asking else "● " if running else "  ", style="bold")
    if depth or getattr(summary, "parent_id", None) or getattr(summary, "spawned_by", None):
        text.append("  " * max(0, depth - 1) + "↳ ", style="dim")  # a fork or a subagent, under its parent
    if getattr(summary, "spawned_by", None):
        text.append(f"{summary.agent} · ", style="dim")  # a subagent's session: which agent ran it
    text.append(session_title(summary.title, summary.last_message) or "(untitled)")
    count = summary.message_count
    text.append(f"  {relative_time(summary.updated, now_ms)} · {count} message{'' if count == 1 else 's'}", style="dim")
    if show_location:
        text.append(f" · {short_path(summary.location)}", style="dim")
    if current:
        text.append("  ◂ on screen", style="bold")
    return text


PREVIEW_CHARS = 400


def preview_text(summary: Any, now_ms: int) -> Text:
    """What the highlighted session is, from its row alone (no query while moving): where, which
    agent and model, how big, what it cost, and its last message."""
    text = Text()
    text.append(session_title(summary.title, summary.last_message) or "(untitled)", style="bold")
    model = f" · {summary.model}" if summary.model else ""
    tokens = summary.input_tokens + summary.output_tokens
    cost = f" · ${summary.cost:.4f}" if summary.cost else ""
    text.append(
        f"\n{inert(short_path(summary.location))} · {inert(summary.agent)}{inert(model)} · {summary.message_count} message{'' if summary.message_count == 1 else 's'}"
        f" · {tokens:,} tokens{cost} · {relative_time(summary.updated, now_ms)}",
        style="dim",
    )
    last = " ".join(inert(summary.last_message or "").split())
    if last:
        text.append("\n" + (last if len(last) <= PREVIEW_CHARS else last[: PREVIEW_CHARS - 1] + "…"))
    return text


def under_parents(rows: list[Any]) -> list[tuple[Any, int]]:
    """Rows in order, each fork (and subagent's session) moved under its parent when the parent is
    among them; with its depth."""
    listed = {row.id for row in rows}
    children: dict[str, list[Any]] = {}
    for row in rows:
        parent = _parent(row)
        if parent is not None and parent in listed:
            children.setdefault(parent, []).append(row)
    out: list[tuple[Any, int]] = []

    def place(row: Any, depth: int) -> None:
        out.append((row, depth))
        for child in children.get(row.id, []):
            place(child, depth + 1)

    for row in rows:
        if _parent(row) not in listed:
            place(row, 0)
    return out


def _parent(row: Any) -> str | None:
    return getattr(row, "spawned_by", None) or getattr(row, "parent_id", None)


CHILD_DEPTH = 4  # subagents of subagents (only when configured), at most this deep


async def descendants(sessions: Any, rows: list[Any]) -> list[Any]:
    """The subagents' sessions ``rows`` started (and theirs), for :func:`under_parents`."""
    out: list[Any] = []
    parents = [row.id for row in rows]
    for _ in range(CHILD_DEPTH):
        found = list(await sessions.children(parents)) if parents else []
        out.extend(found)
        parents = [row.id for row in found]
    return out


class SessionPicker(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "dismiss_picker", "close"),
        Binding("enter", "open", "open", priority=True),
        Binding("tab", "toggle_scope", "all locations", priority=True),
        Binding("ctrl+n", "new", "new session", priority=True),
        Binding("f2", "rename", "rename", priority=True),
        Binding("ctrl+d", "delete", "delete", priority=True),
        Binding("ctrl+g", "import_from", "import from…", priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("pagedown", "move(10)", show=False, priority=True),
        Binding("pageup", "move(-10)", show=False, priority=True),
    ]

    def __init__(self, services: TuiServices, current: str | None = None) -> None:
        super().__init__()
        self.services = services
        self.current = current
        self.all_locations = False
        self.rows: list[Any] = []
        self.has_more = False
        self._debounce: Timer | None = None
        self._generation = 0
        self._peeked = False  # rows on screen came from ``services.peek_sessions``
        self.loaded_generation = 0  # the query whose rows are on screen (tests and bench wait on it)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(id="picker-scope")
            yield Input(placeholder="search titles and messages", id="picker-search")
            yield OptionList(id="picker-list")
            yield Static(id="picker-preview")
            yield Static(
                "enter open · esc close · tab all locations · ctrl+n new · f2 rename · ctrl+d delete"
                " · ctrl+g import from…",
                id="picker-keys",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._paint_scope()
        self.reload()

    def _paint_scope(self) -> None:
        where = "all locations" if self.all_locations else short_path(self.services.location)
        self.query_one("#picker-scope", Static).update(Text(f"Sessions · {where}", style="bold"))

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value.strip()

    @on(Input.Changed, "#picker-search")
    def _typed(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        delay = self.services.timings.search_debounce_s
        if delay <= 0:
            self.reload()
        else:
            self._debounce = self.set_timer(delay, self.reload)

    def reload(self) -> None:
        self._generation += 1
        self.run_worker(self._load(self._generation, 0), exclusive=True, group="picker-query")

    async def _load(self, generation: int, offset: int) -> None:
        location = None if self.all_locations else self.services.location
        if offset == 0 and self.services.sessions is None and not self.query_text:
            await self._peek(generation, location)
        try:
            sessions = await self.services.ready()
        except CoreUnavailable as error:
            if not self._peeked:  # rows read from the file stay; else say why there are none
                self.query_one(OptionList).clear_options()
                self.query_one(OptionList).add_option(Option(Text(str(error), style="dim"), disabled=True))
            return
        rows = list(
            await sessions.list(
                location=location, search=self.query_text or None, limit=PAGE + 1, offset=offset, top_level=True
            )
        )
        children = await descendants(sessions, rows[:PAGE])
        if generation != self._generation:
            return
        active = sessions.active()
        asking = {sid for sid in active if await sessions.permissions.pending(sid)}
        self._show(rows, offset, active, asking, children)
        self.loaded_generation = generation

    async def _peek(self, generation: int, location: str | None) -> None:
        """The first page read straight from the database file, while the facade opens."""
        peek = self.services.peek_sessions
        if peek is None:
            return
        try:
            rows = await asyncio.to_thread(peek, location, PAGE + 1)
        except Exception:  # noqa: BLE001 - no database yet, an older schema: the facade's load tells
            return
        if generation == self._generation and self.services.sessions is None:
            self._show(rows, 0, {}, set())  # nothing runs before the facade opens
            self._peeked = True

    def _show(
        self, rows: list[Any], offset: int, active: dict[str, Any], asking: set[str], children: Sequence[Any] = ()
    ) -> None:
        """A page of top-level rows, each followed by its forks and subagents' sessions (``children``)."""
        self.has_more = len(rows) > PAGE
        placed = under_parents([*rows[:PAGE], *children])
        rows = [row for row, _ in placed]
        now = self.services.clock.now_ms()
        options = [
            Option(
                row_text(
                    r, now, r.id in active, r.id in asking, self.all_locations, depth, current=r.id == self.current
                ),
                id=r.id,
            )
            for r, depth in placed
        ]
        option_list = self.query_one(OptionList)
        if offset == 0:
            kept = self._highlighted_id() if self._peeked else None  # the facade's rows replace a peek
            self._peeked = False
            self.rows = rows
            option_list.clear_options()
            option_list.add_options(options or [Option(Text("no sessions", style="dim"), disabled=True)])
            ids = [r.id for r in rows]
            option_list.highlighted = (ids.index(kept) if kept in ids else 0) if rows else None
        else:
            self.rows.extend(rows)
            option_list.add_options(options)

    def _highlighted_id(self) -> str | None:
        row = self._highlighted_row()
        return row.id if row is not None else None

    def action_move(self, delta: int) -> None:
        option_list = self.query_one(OptionList)
        if not self.rows:
            return
        index = (option_list.highlighted or 0) + delta
        option_list.highlighted = max(0, min(len(self.rows) - 1, index))
        if self.has_more and option_list.highlighted >= len(self.rows) - 5:
            self.has_more = False
            self.run_worker(self._load(self._generation, len(self.rows)), group="picker-page")

    def action_open(self) -> None:
        session_id = self._highlighted_id()
        if session_id is not None:
            self.dismiss(session_id)

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(event.option.id)

    def action_toggle_scope(self) -> None:
        self.all_locations = not self.all_locations
        self._paint_scope()
        self.reload()

    def action_new(self) -> None:
        self.dismiss(NEW_SESSION)

    def action_import_from(self) -> None:
        """Claude Code's, Codex's, Gemini CLI's and opencode's sessions for this directory; the one imported opens."""
        from agent_tui.tui.screens.import_from import ImportScreen

        def imported(session_id: str | None) -> None:
            if session_id:
                self.dismiss(session_id)

        self.app.push_screen(ImportScreen(self.services), imported)

    def action_rename(self) -> None:
        row = self._highlighted_row()
        if row is None:
            return

        def renamed(title: str | None) -> None:
            if title is not None:
                self.run_worker(self._change(lambda s: s.rename(row.id, title), "rename"), group="picker-change")

        self.app.push_screen(RenameScreen(row.title or ""), renamed)

    def action_delete(self) -> None:
        row = self._highlighted_row()
        if row is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(self._delete(row.id), group="picker-change")

        name = row.title or row.id
        self.app.push_screen(ConfirmScreen(f"Delete “{name}”, its log and its snapshots for good?"), answered)

    async def _delete(self, session_id: str) -> None:
        leaving = session_id == self.current  # the session on screen is gone: a new one takes its place
        if await self._change(lambda s: s.delete(session_id), "delete", reload=not leaving) and leaving:
            self.dismiss(NEW_SESSION)  # no reload first: its rows would land on a screen already closed

    async def _change(
        self, change: Callable[[SessionsPort], Awaitable[object]], what: str, reload: bool = True
    ) -> bool:
        try:
            await change(await self.services.ready())
        except Exception as error:  # running, has forks, an empty title: the facade's one line
            self.app.notify(f"{what} failed: {error}", severity="error")
            self.reload()
            return False
        if reload:
            self.reload()
        return True

    @on(OptionList.OptionHighlighted, "#picker-list")
    def _preview(self) -> None:
        row = self._highlighted_row()
        preview = self.query_one("#picker-preview", Static)
        preview.display = row is not None
        if row is not None:
            preview.update(preview_text(row, self.services.clock.now_ms()))

    def _highlighted_row(self) -> Any:
        index = self.query_one(OptionList).highlighted
        return self.rows[index] if index is not None and index < len(self.rows) else None

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)
