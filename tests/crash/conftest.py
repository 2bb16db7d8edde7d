"""One fake provider and one responder for every point of a sweep."""

from __future__ import annotations

import pytest

from agent_tui.testing.fake_provider import FakeProvider

from .scenario import Responder


@pytest.fixture
def responder() -> Responder:
    return Responder()


@pytest.fixture
async def crash_fake(responder: Responder):  # type: ignore[no-untyped-def]
    async with FakeProvider(responder=responder) as provider:
        yield provider
