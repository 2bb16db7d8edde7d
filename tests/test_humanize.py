from agent_tui.humanize import relative_time


def test_relative_time_picks_the_largest_unit() -> None:
    now = 10_000_000_000
    assert relative_time(now - 5_000, now) == "just now"
    assert relative_time(now - 5 * 60_000, now) == "5m ago"
    assert relative_time(now - 3 * 3_600_000, now) == "3h ago"
    assert relative_time(now - 2 * 86_400_000, now) == "2d ago"
    assert relative_time(now + 1_000, now) == "just now"  # a clock a little ahead never goes negative
