"""The picker lists a fork under its parent when both are on the page."""

from __future__ import annotations

from types import SimpleNamespace

from agent_tui.tui.screens.picker import row_text, under_parents


def _row(id: str, parent: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        id=id, parent_id=parent, title=id, last_message=None, message_count=1, updated=0, location="/w"
    )


def test_forks_follow_their_parents_and_forks_of_missing_parents_stay_in_place() -> None:
    rows = [_row("c", "a"), _row("b"), _row("a"), _row("d", "c"), _row("e", "gone")]
    assert [(r.id, depth) for r, depth in under_parents(rows)] == [("b", 0), ("a", 0), ("c", 1), ("d", 2), ("e", 0)]
    assert str(row_text(rows[0], 0, False, False, False, depth=1)).startswith("  ↳ c")
    assert str(row_text(rows[4], 0, False, False, False, depth=0)).startswith("  ↳ e"), "still marked as a fork"
    assert "↳" not in str(row_text(rows[1], 0, False, False, False))
