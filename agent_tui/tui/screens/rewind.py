"""The rewind list: the session's earlier prompts, newest first, then what to bring back.

Esc Esc (idle) or ``/rewind`` opens it. Choosing a prompt offers *conversation
and files*, *conversation only*, *files only* (and *fork from here* when the
host can fork), with the files a files rewind would change and their diff
shown before anything is restored, and the tool calls it would not restore
(or why it would be refused), never "nothing would change" over them. The last rewind, while it can still be
undone, is offered first. The screen only chooses; the view does the rewind.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.humanize import relative_time
from agent_tui.tui.rewind_choice import FORK, MODES, UNDO, RewindChoice
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.diff import render_patch


class RewindScreen(ModalScreen[RewindChoice | None]):
    BINDINGS = [
        Binding("escape", "back", "back / close"),
        Binding("enter", "choose", "choose", priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
    ]

    def __init__(self, services: TuiServices, session_id: str, can_fork: bool = False) -> None:
        super().__init__()
        self.services = services
        self.session_id = session_id
        self.can_fork = can_fork
        self.points: list[Any] = []
        self.chosen: Any = None  # the prompt whose choices are on screen
        self.ids: list[str] = []  # option ids in order
        self.loaded = False
        self.preview: Any = None  # the files preview of the chosen prompt, once read

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind"):
            yield Static(Text("Rewind · earlier prompts, newest first", style="bold"), id="rewind-title")
            yield OptionList(id="rewind-list")
            with VerticalScroll(id="rewind-preview-box"):
                yield Static(id="rewind-preview")
            yield Static("enter choose · esc back", id="rewind-keys")

    def on_mount(self) -> None:
        self.query_one("#rewind-preview-box").display = False
        self.run_worker(self._load(), group="rewind")

    async def _load(self) -> None:
        sessions = await self.services.ready()
        self.points = list(await sessions.rewind_points(self.session_id))
        undo = await sessions.can_undo_rewind(self.session_id)
        now = self.services.clock.now_ms()
        options = [Option(Text("↶ undo the last rewind (files included)", style="bold"), id=UNDO)] if undo else []
        for point in self.points:
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append((point.text.splitlines() or [""])[0])
            line.append(f"  {relative_time(point.created, now)}", style="dim")
            options.append(Option(line, id=point.message_id))
        self._show(options or [Option(Text("no earlier prompts", style="dim"), disabled=True)])
        self.loaded = True

    def _show(self, options: list[Option]) -> None:
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.add_options(options)
        self.ids = [o.id for o in options if o.id]
        listing.highlighted = 0 if self.ids else None

    def _highlighted(self) -> str | None:
        index = self.query_one(OptionList).highlighted
        return self.ids[index] if index is not None and index < len(self.ids) else None

    def action_move(self, delta: int) -> None:
        listing = self.query_one(OptionList)
        if self.ids:
            listing.highlighted = max(0, min(len(self.ids) - 1, (listing.highlighted or 0) + delta))

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        self.action_choose()

    def action_choose(self) -> None:
        picked = self._highlighted()
        if picked is None:
            return
        if self.chosen is None:
            if picked == UNDO:
                self.dismiss(RewindChoice(UNDO))
                return
            self.chosen = next(p for p in self.points if p.message_id == picked)
            self._offer(self.chosen)
            return
        self.dismiss(RewindChoice(picked, self.chosen.message_id, self.chosen.text))

    def _offer(self, point: Any) -> None:
        modes = [*MODES, *([(FORK, "fork from here (a new session)")] if self.can_fork else [])]
        self._show([Option(label, id=mode) for mode, label in modes])
        first = (point.text.splitlines() or [""])[0]
        self.query_one("#rewind-title", Static).update(Text(f"Rewind to before: {first}", style="bold"))
        self.query_one("#rewind-preview-box").display = True
        self.query_one("#rewind-preview", Static).update(Text("reading which files would change…", style="dim"))
        self.run_worker(self._preview(point.message_id), group="rewind-preview", exclusive=True)

    async def _preview(self, message_id: str) -> None:
        sessions = await self.services.ready()
        box = self.query_one("#rewind-preview", Static)
        try:
            preview = await sessions.rewind_preview(self.session_id, message_id)
        except Exception as error:  # a missing snapshot: say so; the conversation rewind still works
            box.update(Text(f"files: {error}", style="bold"))
            return
        self.preview = preview
        if preview.refusal is not None:  # a files rewind would be refused: say which calls and why
            box.update(Text(f"files: {preview.refusal}", style="bold"))
            return
        if not preview.changed and not preview.unrestorable:
            box.update(Text("files: nothing would change", style="dim"))
            return
        out = Text()
        if preview.unrestorable:
            out.append(f"would not be restored ({len(preview.unrestorable)}):\n", style="bold")
            for uncovered in preview.unrestorable:
                out.append(f"  {uncovered.line()}\n")
            out.append("\n")
        if preview.changed:
            out.append(f"files that would change ({len(preview.changed)}):\n", style="bold")
            for change in preview.changed:
                out.append(f"  {change.change:<9} {change.path}\n")
            out.append("\n")
            out.append_text(render_patch(preview.diff, self.app.theme_variables))
        box.update(out)

    def action_back(self) -> None:
        if self.chosen is None:
            self.dismiss(None)
            return
        self.chosen, self.preview = None, None
        self.query_one("#rewind-preview-box").display = False
        self.query_one("#rewind-title", Static).update(Text("Rewind · earlier prompts, newest first", style="bold"))
        self.run_worker(self._load(), group="rewind")
