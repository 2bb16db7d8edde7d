"""The shared wait: it returns what the condition found, awaits async conditions, and fails by name."""

from __future__ import annotations

import pytest

from tests.waiting import until


async def test_it_returns_the_first_truthy_value_of_a_plain_or_async_condition() -> None:
    polls = iter([None, 0, "found"])
    assert await until(lambda: next(polls), every=0) == "found"

    async def later() -> list[int]:
        return [1]

    assert await until(later) == [1]


async def test_it_fails_naming_what_never_happened() -> None:
    with pytest.raises(AssertionError, match=r"timed out after 0\.05 s waiting for the door to open"):
        await until(lambda: False, "the door to open", timeout=0.05)
