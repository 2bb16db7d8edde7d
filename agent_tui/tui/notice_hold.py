"""Notices wait while a permission panel is open, so no toast draws over the ask being answered.

Toasts sit at the bottom right, where the panel is. While it is open, new
notices are held and those on screen are taken down and held too; when it
closes they all show (in order, each for its full time): nothing is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HeldNotice:
    message: str
    title: str
    severity: Any
    timeout: float | None
    markup: bool


class NoticeHold:
    def __init__(self) -> None:
        self.holding = False
        self.held: list[HeldNotice] = []

    def hold(self, on_screen: Iterable[Any]) -> None:
        """Start holding; ``on_screen`` (Textual notifications) are held first, ahead of new ones."""
        self.holding = True
        self.held[:0] = [HeldNotice(n.message, n.title, n.severity, n.timeout, n.markup) for n in on_screen]

    def release(self, show: Callable[[HeldNotice], None]) -> None:
        self.holding = False
        held, self.held = self.held, []
        for notice in held:
            show(notice)
