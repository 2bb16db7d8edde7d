"""The prompt: a multi-line ``TextArea`` where Enter sends and Tab queues.

``TextArea`` inserts a newline in ``_on_key``, so Enter-to-send is a priority
binding; Shift+Enter and Ctrl+J (which many terminals cannot tell apart) insert
the newline instead. Up/Down recall history only at the first/last line, so
moving inside a multi-line draft still works.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from agent_tui.core.events import Delivery


class PromptInput(TextArea):
    BINDINGS = [
        Binding("enter", "submit('steer')", "send", priority=True),
        Binding("tab", "submit('queue')", "queue", priority=True),
        Binding("shift+enter,ctrl+j", "newline", "newline", show=False, priority=True),
        Binding("up", "history(-1)", show=False),
        Binding("down", "history(1)", show=False),
        Binding("alt+up", "edit_queued", "edit queued", show=False),
    ]

    class Submitted(Message):
        def __init__(self, text: str, delivery: Delivery) -> None:
            super().__init__()
            self.text = text
            self.delivery = delivery

    class EditQueued(Message):
        """Alt+Up: take the last queued input back into the prompt."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.sent: list[str] = []
        self._recall: int | None = None  # index into history while browsing
        self._draft = ""

    def action_submit(self, delivery: str) -> None:
        text = self.text
        if not text.strip():
            return
        self.sent.append(text)
        self._recall = None
        self.clear()
        self.post_message(self.Submitted(text, Delivery(delivery)))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_history(self, direction: int) -> None:
        row, _ = self.cursor_location
        at_edge = row == 0 if direction < 0 else row == self.document.line_count - 1
        if not at_edge or not self.sent:
            self.action_cursor_up() if direction < 0 else self.action_cursor_down()
            return
        if self._recall is None:
            if direction > 0:
                return
            self._draft, self._recall = self.text, len(self.sent)
        self._recall += direction
        if self._recall < 0:
            self._recall = 0
            return
        if self._recall >= len(self.sent):
            self._recall = None
            self.load_text(self._draft)
        else:
            self.load_text(self.sent[self._recall])
        self.move_cursor(self.document.end if direction > 0 else (0, 0))

    def action_edit_queued(self) -> None:
        self.post_message(self.EditQueued())
