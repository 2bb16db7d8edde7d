"""Countdowns: the number shown and when it next changes, shared by the retry notice and status bar."""

from __future__ import annotations

import pytest

from agent_tui.tui.timings import countdown


@pytest.mark.parametrize(
    ("left_ms", "shown", "changes_in"),
    [(4000, 4, 1.0), (3999, 4, 0.999), (3001, 4, 0.001), (3000, 3, 1.0), (250, 1, 0.25), (0, 0, 1.0), (-500, 0, 1.0)],
)
def test_countdown_rounds_up_and_says_when_the_number_changes(left_ms: int, shown: int, changes_in: float) -> None:
    now = 1_700_000_000_000
    assert countdown(now + left_ms, now) == (shown, pytest.approx(changes_in))
