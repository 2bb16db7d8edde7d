"""The red bullet on the wire that signs reasoning: nothing native crosses the checkpoint."""

from __future__ import annotations

import json

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import of_type, settle, stored
from .helpers import SUMMARY, echo


@pytest.fixture
def settings_overrides(fake: FakeProvider) -> dict:
    return {"model": "anthropic/claude-fake", "api_base": fake.base_url}


async def test_no_thinking_or_tool_blocks_cross_the_checkpoint(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add(
        echo("toolu_1", "pong", reasoning="signed thoughts", signature="sig-abc"),
        {"text": "one"},
        {"text": SUMMARY},
        {"text": "two"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "hello")
    await settle(runtime, sid)
    before = json.dumps(fake.accepted[1].body["messages"])
    assert "sig-abc" in before and "tool_use" in before  # native replay inside the loop
    await runtime.sessions.compact(sid)
    await runtime.sessions.prompt(sid, "next")
    await settle(runtime, sid)
    assert of_type(await stored(runtime, sid), ev.CompactionEnded)
    assert all(r.rejected is None for r in fake.requests)
    after = fake.accepted[3].body
    dumped = json.dumps(after["messages"])
    assert [m["role"] for m in after["messages"]] == ["user"]  # checkpoint and prompt, merged into one user turn
    assert "sig-abc" not in dumped and "signed thoughts" not in dumped
    assert "tool_use" not in dumped and "tool_result" not in dumped and "thinking" not in dumped
    assert "Ship the parser fix." in dumped and "next" in dumped
