"""UI time: grace periods, double-press windows, countdowns, debounce.

The clock itself (``Clock``, ``SystemClock`` and the ``ManualClock`` tests and
snapshots pass, so nothing waits for real time and relative times render the
same on every run) is in :mod:`agent_tui.vocab.clock`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COUNTDOWN_SLACK_S", "Timings", "countdown"]


COUNTDOWN_SLACK_S = 0.01  # a countdown repaints just after its number changed, not just before


def countdown(at_ms: int, now_ms: int) -> tuple[int, float]:
    """Whole seconds left until ``at_ms`` as shown (rounded up), and the seconds until that number
    changes: widgets that repaint then show the same number at the same moment."""
    left = max(0, at_ms - now_ms)
    return -(-left // 1000), (left % 1000 or 1000) / 1000


@dataclass(frozen=True)
class Timings:
    """Every UI delay in one place, so tests can shrink them to zero."""

    permission_grace_s: float = 0.4  # keys meant for the prompt do not answer a fresh ask
    quit_window_s: float = 2.0  # second Ctrl+C within this quits
    double_escape_s: float = 0.8  # second Esc (idle) within this opens the rewind list
    search_debounce_s: float = 0.08  # picker search waits for a pause in typing
    flush_interval_s: float = 1 / 20  # transcript repaints at most this often while streaming
    gc_quiet_s: float = 1.0  # no key and no repaint for this long: time for a postponed full GC
