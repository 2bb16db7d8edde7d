"""The agent's step allowance: resets, retries counting as steps, the final step."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, of_type, settle, stored


def _echo(call_id: str = "call_1", text: str = "ok") -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "echo", "arguments": {"text": text}}]}


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"agents": {"build": {"steps": 2}}}


async def test_steers_at_one_boundary_reset_the_allowance_once(
    runtime: Runtime, fake: FakeProvider, workdir, litellm_loaded: None
) -> None:
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


RATE = {"error": {"status": 429, "kind": "rate_limit"}}


def _is_final(body: dict[str, Any]) -> bool:
    return not body.get("tools") and "final step" in str(body["messages"][-1]["content"]).lower()


async def test_a_retry_consumes_the_allowance_so_the_last_allowed_attempt_is_the_final_step(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(RATE, {"text": "the answer"}, {"text": "never"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    first, retry = (request.body for request in fake.accepted)
    assert first.get("tools") and not _is_final(first)
    assert _is_final(retry)  # two attempts of one step spend an allowance of two
    log = await stored(runtime, sid)
    assert [s.attempt for s in of_type(log, ev.StepStarted)] == [1, 2]
    assert kinds(log)[-1] == "execution.succeeded" and fake.remaining == 1


async def test_retries_stop_when_the_allowance_is_spent(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add(RATE, RATE, {"text": "never"})  # the retry policy alone would allow five attempts
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    assert len(of_type(log, ev.StepStarted)) == 2 and fake.remaining == 1
    assert of_type(log, ev.StepFailed)[0].error.type == "provider.rate-limit"
    assert kinds(log)[-1] == "execution.failed"


@pytest.mark.parametrize("settings_overrides", [{"agents": {"build": {"steps": 3}}}])
async def test_retries_of_an_earlier_step_count_against_the_later_ones(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(RATE, _echo("c1"), {"text": "final words"}, {"text": "never"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    bodies = [request.body for request in fake.accepted]
    assert len(bodies) == 3 and [_is_final(b) for b in bodies] == [False, False, True]
    assert kinds(await stored(runtime, sid))[-1] == "execution.succeeded"
