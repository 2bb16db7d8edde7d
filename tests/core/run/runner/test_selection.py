"""Agent and model selection are step-scoped: a switch admitted mid-step applies from the next step."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from tests.core.run.compaction.helpers import echo, texts

from .conftest import of_type, settle, stored

REVIEWER = "You are the reviewer agent."


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"agents": {"build": {}, "reviewer": {"prompt": REVIEWER}}}


def _system(body: dict[str, Any]) -> str:
    return "\n".join(texts(m) for m in body["messages"] if m["role"] == "system")


async def test_a_switch_admitted_mid_step_applies_from_the_next_step_not_to_the_current_ones_retry(
    runtime: Runtime, fake: FakeProvider, workdir, litellm_loaded: None
) -> None:
    fake.add({"error": {"status": 429, "kind": "rate_limit"}, "hold": True}, echo("call_1", "pong"), {"text": "done"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await fake.wait_for("held")  # the first step's request is in flight
    await runtime.sessions.select_model(sid, "openai/other-model")
    await runtime.sessions.select_agent(sid, "reviewer")
    fake.release()
    await settle(runtime, sid)

    attempt_1, attempt_2, next_step = (request.body for request in fake.accepted)
    assert [attempt_1["model"], attempt_2["model"], next_step["model"]] == ["fake-model", "fake-model", "other-model"]
    assert REVIEWER not in _system(attempt_1) and REVIEWER not in _system(attempt_2)
    assert REVIEWER in _system(next_step)
    assert any(m["role"] == "tool" and texts(m) == "pong" for m in next_step["messages"])  # the step was not restarted
    log = await stored(runtime, sid)
    started = of_type(log, ev.StepStarted)
    assert [(s.agent, s.model, s.attempt) for s in started] == [
        ("build", "openai/fake-model", 1),
        ("build", "openai/fake-model", 2),
        ("reviewer", "openai/other-model", 1),
    ]
    assert (
        len({s.assistant_message_id for s in started[:2]}) == 1
        and started[2].assistant_message_id != started[0].assistant_message_id
    )
