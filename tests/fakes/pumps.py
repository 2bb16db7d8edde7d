"""``FramePump``: stands in for a Textual widget's ``call_after_refresh``; its frame comes when the test says."""

from __future__ import annotations

from collections.abc import Callable


class FramePump:
    """``open=False``: a closing widget, which schedules nothing."""

    def __init__(self, open: bool = True) -> None:
        self.open = open
        self.after_frame: list[Callable[[], None]] = []

    def call_after_refresh(self, callback: Callable[[], None]) -> bool:
        if self.open:
            self.after_frame.append(callback)
        return self.open

    def paint(self) -> None:
        while self.after_frame:
            self.after_frame.pop(0)()
