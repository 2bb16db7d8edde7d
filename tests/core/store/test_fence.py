"""The write fence travels with the period's context: into the tasks it starts, never out of it."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.core.errors import StaleFence
from agent_tui.core.store import fence


async def test_tasks_started_inside_carry_the_fence_and_nothing_leaks_out() -> None:
    refused: list[str] = []
    first = fence.Fence("ses_a", 3, refused=lambda: refused.append("first"))
    with fence.fencing(first):
        child = asyncio.create_task(_token_later("ses_a"))
        assert fence.current() == first and fence.token_for("ses_a") == 3
        assert fence.token_for("ses_b") is None  # a token names one session
        with fence.fencing(None):  # a subagent's period: none of its parent's fence
            assert fence.token_for("ses_a") is None
    with fence.fencing(fence.Fence("ses_a", 4)):  # the next period
        assert await child == 3  # a task of the earlier period keeps the earlier token
    assert fence.current() is None and refused == []


async def test_a_refusal_is_reported_only_to_the_tenure_whose_token_it_was() -> None:
    refused: list[int] = []
    with fence.fencing(fence.Fence("ses_a", 5, refused=lambda: refused.append(5))):
        fence.report(StaleFence("ses_a", 4))  # an older token of the session: not this tenure's
        fence.report(StaleFence("ses_b", 5))
        assert refused == []

        async def write(token: int | None) -> None:
            raise StaleFence("ses_a", token or 0)

        with pytest.raises(StaleFence):
            await fence.fenced("ses_a", write)
    assert refused == [5]


async def test_a_write_outside_any_period_carries_no_token() -> None:
    async def write(token: int | None) -> int | None:
        return token

    assert await fence.fenced("ses_a", write) is None


async def _token_later(session_id: str) -> int | None:
    await asyncio.sleep(0)
    return fence.token_for(session_id)
