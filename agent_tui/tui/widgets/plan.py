"""The live plan pinned above the prompt: the model's ``todo`` checklist while work is open.

It shows the feed's plan (the store's projection), so a resumed, rewound or
forked session shows the plan it has. Hidden when there is none or every item
is done. Alt+T (or a click) folds it to one line: the count and the step in
progress; the fold holds across updates, so a user who folded it keeps the room.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from agent_tui.vocab.kinds import PlanStatus
from agent_tui.vocab.terminal_text import inert

if TYPE_CHECKING:
    from agent_tui.core.api import PlanRecord
    from agent_tui.vocab.plan import PlanItem

MARKS = {PlanStatus.DONE: "✓", PlanStatus.IN_PROGRESS: "▸", PlanStatus.PENDING: "○"}
MAX_ROWS = 8
"""Items shown unfolded; the done ones at the top give way first, counted in one line."""


def _one_line(text: str, limit: int = 100) -> str:
    line = " ".join(inert(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _current(items: list[PlanItem]) -> PlanItem | None:
    """The step in progress, else the next pending one."""
    for wanted in (PlanStatus.IN_PROGRESS, PlanStatus.PENDING):
        for item in items:
            if item.status is wanted:
                return item
    return None


class PlanPanel(Static):
    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[PlanItem] = []
        self.collapsed = False
        self.display = False

    def show_plan(self, plan: PlanRecord | None) -> None:
        items = list(plan.items) if plan is not None and plan.open else []
        if items == self.items:
            return
        self.items = items
        self.display = bool(items)
        self._paint()

    def toggle(self) -> None:
        self.collapsed = not self.collapsed
        self._paint()

    def on_click(self) -> None:
        self.toggle()

    def lines(self) -> list[str]:
        """What the panel says, one string a row (the tests read it)."""
        if not self.items:
            return []
        done = sum(item.status is PlanStatus.DONE for item in self.items)
        head = f"Plan {done}/{len(self.items)} done"
        if self.collapsed:
            current = _current(self.items)
            return [f"{head} · {_one_line(current.content) if current else ''} (alt+t unfolds)"]
        shown = self.items
        hidden = 0
        while len(shown) > MAX_ROWS and shown[0].status is PlanStatus.DONE:
            shown, hidden = shown[1:], hidden + 1
        rows = [f"{head} (alt+t folds)"]
        if hidden:
            rows.append(f"{MARKS[PlanStatus.DONE]} … {hidden} more done")
        rows += [f"{MARKS[item.status]} {_one_line(item.content)}" for item in shown[:MAX_ROWS]]
        if len(shown) > MAX_ROWS:
            rows.append(f"  … {len(shown) - MAX_ROWS} more")
        return rows

    def _paint(self) -> None:
        text = Text()
        for number, row in enumerate(self.lines()):
            if number:
                text.append("\n")
            if number == 0:
                text.append(row, style="bold")
            elif row.startswith(MARKS[PlanStatus.IN_PROGRESS]):
                text.append(row, style="bold")
            elif row.startswith(MARKS[PlanStatus.DONE]):
                text.append(row, style="dim")
            else:
                text.append(row)
        self.update(text)
