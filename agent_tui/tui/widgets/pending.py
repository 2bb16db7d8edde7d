"""Admitted-but-unpromoted input above the prompt, with ``steer``/``queued`` badges."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from agent_tui.tui.transcript_model import PendingInput
from agent_tui.vocab.kinds import Delivery


def _one_line(text: str, limit: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class PendingInputStrip(Static):
    """One line per pending input, in admission order; hidden when empty."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[PendingInput] = []
        self.display = False

    def show_items(self, items: list[PendingInput]) -> None:
        if [(i.input_id, i.text) for i in items] == [(i.input_id, i.text) for i in self.items]:
            return
        self.items = list(items)
        self.display = bool(items)
        steer = self.app.theme_variables.get("badge-steer")
        queued = self.app.theme_variables.get("badge-queued")
        text = Text()
        for item in items:
            is_steer = item.delivery is Delivery.STEER
            text.append(" steer  " if is_steer else " queued ", style=f"bold reverse {steer if is_steer else queued}")
            text.append(f" {_one_line(item.text)}\n")
        if items:
            queued_any = any(item.delivery is not Delivery.STEER for item in items)  # Alt+Up edits queued ones only
            text.append(("alt+↑ edit last queued · " if queued_any else "") + "alt+w withdraw last", style="dim")
        self.update(text)
