"""MCP servers' sampling requests in core: declined with no one watching, run on the model only once
approved, a failing model or an ended call recorded as such; every outcome in the log."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_tui.core.host.open_asks import CALL_ENDED, HEADLESS, OpenQuestion
from agent_tui.core.host.samplings import Sampled, Samplings, UnknownSampling
from agent_tui.core.log import events as ev
from agent_tui.vocab.sampling import DECLINED, SamplingMessage, SamplingRequest
from agent_tui.vocab.usage import Usage

REQUEST = SamplingRequest(
    server="notes", messages=(SamplingMessage("user", "Summarise"),), max_tokens=32, system_prompt="Be brief."
)


class Recorder:
    session_id = "ses_1"

    def __init__(self) -> None:
        self.events: list[Any] = []

    async def __call__(self, event: Any) -> None:
        self.events.append(event)


class Model:
    """The session's model as the runtime binds it: counts its calls, answers or fails."""

    def __init__(self, fail: bool = False) -> None:
        self.asked: list[SamplingRequest] = []
        self.fail = fail

    async def __call__(self, request: SamplingRequest) -> Sampled:
        self.asked.append(request)
        if self.fail:
            raise RuntimeError("rate limited")
        return Sampled("Short.", "m1", "endTurn", Usage(input_tokens=7, output_tokens=2), 0.001, "config")


async def test_with_no_one_watching_a_request_is_declined_and_the_model_never_asked() -> None:
    publish, model = Recorder(), Model()
    answer = await Samplings().asker(publish, model, "msg_1", "call_1")(REQUEST)  # type: ignore[arg-type]
    assert (answer.approved, answer.reason) == (False, HEADLESS)
    assert model.asked == []
    asked, answered = publish.events
    assert isinstance(asked, ev.SamplingAsked) and (asked.server, asked.call_id) == ("notes", "call_1")
    assert asked.messages == [{"role": "user", "text": "Summarise"}] and asked.system_prompt == "Be brief."
    assert answered == ev.SamplingAnswered(request_id=asked.request_id, action="decline", reason=HEADLESS)


@pytest.mark.parametrize("approve", [True, False])
async def test_a_watched_request_waits_for_the_decision(approve: bool) -> None:
    samplings, publish, model = Samplings(), Recorder(), Model()
    shown: list[OpenQuestion[SamplingRequest]] = []
    samplings.watch(shown.append)
    asking = asyncio.ensure_future(samplings.asker(publish, model, None, None)(REQUEST))  # type: ignore[arg-type]
    while not shown:
        await asyncio.sleep(0)
    with pytest.raises(UnknownSampling):
        samplings.answer("sample_nope", True)
    samplings.answer(shown[0].request_id, approve)
    answer = await asking
    assert shown[0].ended.is_set() and samplings.open() == []
    answered = publish.events[-1]
    if approve:
        assert (answer.approved, answer.text, answer.model, answer.stop_reason) == (True, "Short.", "m1", "endTurn")
        assert model.asked == [REQUEST]
        assert (answered.action, answered.text, answered.usage) == (
            "approve",
            "Short.",
            Usage(input_tokens=7, output_tokens=2),
        )
    else:
        assert (answer.approved, answer.reason, model.asked) == (False, DECLINED, [])
        assert (answered.action, answered.reason, answered.usage) == ("decline", DECLINED, None)


async def test_a_failing_model_declines_with_its_reason_and_an_ended_call_cancels() -> None:
    samplings, publish = Samplings(), Recorder()
    shown: list[OpenQuestion[SamplingRequest]] = []
    samplings.watch(shown.append)
    asking = asyncio.ensure_future(samplings.asker(publish, Model(fail=True), None, None)(REQUEST))  # type: ignore[arg-type]
    while not shown:
        await asyncio.sleep(0)
    samplings.answer(shown[0].request_id, True)
    answer = await asking
    assert (answer.approved, answer.reason) == (False, "the model failed: rate limited")
    assert publish.events[-1].action == "decline" and publish.events[-1].reason == "the model failed: rate limited"

    asking = asyncio.ensure_future(samplings.asker(publish, Model(), None, None)(REQUEST))  # type: ignore[arg-type]
    while len(shown) < 2:
        await asyncio.sleep(0)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    assert publish.events[-1] == ev.SamplingAnswered(request_id=shown[1].request_id, action="cancel", reason=CALL_ENDED)
    assert shown[1].ended.is_set()
