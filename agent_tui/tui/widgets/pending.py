"""Admitted-but-unpromoted input above the prompt: numbered, with ``steer``/``queued`` badges.

Up from the prompt's first line (or Alt+Up) puts a cursor in the strip; there
Enter edits the item (withdrawn, put back in the prompt), Delete withdraws it,
``s`` turns a queued item into a steer, Ctrl+Up/Down move a queued item in
the queue (a durable reorder), Esc (or Down past the last) goes back.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from agent_tui.tui.transcript.records import PendingInput
from agent_tui.vocab.kinds import Delivery
from agent_tui.vocab.terminal_text import inert


def _one_line(text: str, limit: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class PendingInputStrip(Static):
    """One line per pending input, in promotion order; hidden when empty. Focusable only while its
    cursor is in it, so it never takes the focus (or a Tab) from the prompt by itself."""

    BINDINGS = [
        Binding("up", "move(-1)", show=False, tooltip="pending input: previous item"),
        Binding("down", "move(1)", show=False, tooltip="pending input: next item (past the last: the prompt)"),
        Binding("enter", "pick('edit')", "edit", tooltip="pending input: edit the item (withdrawn, put in the prompt)"),
        Binding("delete,backspace", "pick('withdraw')", "withdraw", tooltip="pending input: withdraw the item"),
        Binding("s", "pick('steer')", "steer", tooltip="pending input: send a queued item as a steer"),
        Binding("ctrl+up", "reorder(-1)", "earlier", show=False, tooltip="pending input: move a queued item earlier"),
        Binding("ctrl+down", "reorder(1)", "later", show=False, tooltip="pending input: move a queued item later"),
        Binding("escape", "leave", "prompt", tooltip="pending input: back to the prompt"),
    ]

    class Picked(Message):
        """``action`` (edit, withdraw, steer) on ``item``."""

        def __init__(self, action: str, item: PendingInput) -> None:
            super().__init__()
            self.action = action
            self.item = item

    class Reordered(Message):
        """The queued items' input ids in their new order."""

        def __init__(self, order: list[str]) -> None:
            super().__init__()
            self.order = order

    class Left(Message):
        """The cursor left the strip: the prompt takes the keys again."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[PendingInput] = []
        self.cursor: int | None = None
        self.display = False

    def enter(self, at_last_queued: bool = False) -> bool:
        """Put the cursor on the last item (or the last queued one); False when there is none."""
        if not self.items:
            return False
        queued = [i for i, item in enumerate(self.items) if item.delivery is Delivery.QUEUE]
        self.cursor = queued[-1] if at_last_queued and queued else len(self.items) - 1
        self.can_focus = True
        self.focus()
        self._paint()
        return True

    @property
    def current(self) -> PendingInput | None:
        return self.items[self.cursor] if self.cursor is not None and self.cursor < len(self.items) else None

    def action_move(self, step: int) -> None:
        if self.cursor is None:
            return
        target = self.cursor + step
        if target >= len(self.items):
            self.action_leave()
            return
        self.cursor = max(target, 0)
        self._paint()

    def action_pick(self, action: str) -> None:
        item = self.current
        if item is None or (action == "steer" and item.delivery is Delivery.STEER):
            return
        self.post_message(self.Picked(action, item))

    def action_reorder(self, step: int) -> None:
        item = self.current
        queued = [i.input_id for i in self.items if i.delivery is Delivery.QUEUE]
        if item is None or item.input_id not in queued:
            return
        at = queued.index(item.input_id)
        to = at + step
        if 0 <= to < len(queued):
            queued[at], queued[to] = queued[to], queued[at]
            self.post_message(self.Reordered(queued))

    def action_leave(self) -> None:
        self.cursor = None
        self._paint()
        self.post_message(self.Left())

    def on_blur(self) -> None:
        self.can_focus = False
        if self.cursor is not None:
            self.cursor = None
            self._paint()

    def show_items(self, items: list[PendingInput]) -> None:
        if [(i.input_id, i.text) for i in items] == [(i.input_id, i.text) for i in self.items]:
            return
        current = self.current
        self.items = list(items)
        self.display = bool(items)
        if self.cursor is not None:
            ids = [i.input_id for i in items]
            self.cursor = (
                ids.index(current.input_id)
                if current and current.input_id in ids
                else (min(self.cursor, len(items) - 1) if items else None)
            )
            if self.cursor is None:
                self.post_message(self.Left())
        self._paint()

    def _paint(self) -> None:
        steer = self.app.theme_variables.get("badge-steer")
        queued = self.app.theme_variables.get("badge-queued")
        text = Text()
        for number, item in enumerate(self.items, start=1):
            is_steer = item.delivery is Delivery.STEER
            here = number - 1 == self.cursor
            text.append("▸" if here else " ", style="bold")
            text.append(f"{number} ", style="bold" if here else "dim")
            text.append(" steer  " if is_steer else " queued ", style=f"bold reverse {steer if is_steer else queued}")
            text.append(f" {_one_line(inert(item.text))}\n", style="reverse" if here else "")
        if self.cursor is not None:
            text.append("enter edit · del withdraw · s steer · ctrl+↑/↓ reorder · esc back", style="dim")
        elif self.items:
            queued_any = any(item.delivery is not Delivery.STEER for item in self.items)
            text.append(
                "↑ select · " + ("alt+↑ last queued · " if queued_any else "") + "alt+w withdraw last", style="dim"
            )
        self.update(text)
