"""What every screen and session view is handed: the facade, where, which model, time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from agent_tui.tui.clock import Clock, SystemClock, Timings
from agent_tui.tui.port import SessionsPort


def _unknown_window(model: str | None) -> int | None:
    return None


@dataclass
class TuiContext:
    sessions: SessionsPort
    location: str
    model: str | None = None
    agent: str | None = None
    clock: Clock = field(default_factory=SystemClock)
    timings: Timings = field(default_factory=Timings)
    context_window: Callable[[str | None], int | None] = _unknown_window
    known_models: tuple[str, ...] = ()  # offered in the palette
    setup_hint: str | None = None  # one line saying what to configure, when something is missing
