from agent_tui.core.log import ids


def test_ids_are_prefixed_and_sort_by_creation() -> None:
    made = [ids.new_id("msg") for _ in range(2000)]
    assert all(i.startswith("msg_") and len(i) == 30 for i in made)
    assert made == sorted(made)
    assert len(set(made)) == len(made)


def test_timestamp_round_trips() -> None:
    assert ids.timestamp_ms(ids.new_id("ses", now_ms=1_700_000_000_123)) == 1_700_000_000_123


def test_later_time_sorts_later() -> None:
    assert ids.new_id("ses", now_ms=10) < ids.new_id("ses", now_ms=2_000_000_000_000)
