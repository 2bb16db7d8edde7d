"""The agent's step allowance: resets, retries counting as steps, the final step."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import settle


def _echo(call_id: str = "call_1", text: str = "ok") -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "echo", "arguments": {"text": text}}]}


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"agents": {"build": {"steps": 2}}}


async def test_steers_at_one_boundary_reset_the_allowance_once(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({**_echo("c1"), "hold": True}, _echo("c2"), {"text": "final words"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await fake.wait_for("held")
    await runtime.sessions.prompt(sid, "steer a")
    await runtime.sessions.prompt(sid, "steer b")
    fake.release()
    await settle(runtime, sid)
    # step 1 (before the steers), then a fresh allowance of 2: one tool step, one final step.
    assert len(fake.accepted) == 3
    final = fake.accepted[2].body
    assert "tools" not in final or not final["tools"]
    assert "final step" in str(final["messages"][-1]["content"]).lower()
    assert "tools" in fake.accepted[1].body


