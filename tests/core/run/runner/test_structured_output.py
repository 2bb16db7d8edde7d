"""Structured output in the runner: ``final_answer`` offered while the session requires an answer,
forced on the allowance's final step and in a repair, and the turn over once an answer is accepted
(read from the log, so a replay and a later explicit run agree)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import of_type, settle, stored

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
FORCED = {"type": "function", "function": {"name": "final_answer"}}


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def _names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


async def test_an_accepted_answer_ends_the_turn_and_a_replay_agrees(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    """The step that calls ``final_answer`` (beside another tool) is the turn's last; after a rebuild
    of every projection an explicit run finds nothing to do either."""
    fake.add(
        {"tool_calls": [_call("c1", "echo", {"text": "x"}), _call("c2", "final_answer", {"n": 7})]},
        {"text": "never asked for"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    runtime.sessions.answers.require(sid, SCHEMA)
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    assert len(fake.accepted) == 1 and fake.remaining == 1
    body = fake.accepted[0].body
    assert _names(body)[-1] == "final_answer" and "echo" in _names(body) and "tool_choice" not in body
    found = await runtime.sessions.answers.structured(sid)
    assert found is not None and found.value == {"n": 7} and found.call_id == "c2"
    assert [e.output.data for e in of_type(await stored(runtime, sid), ev.ToolSucceeded)][-1] == {"value": {"n": 7}}

    await runtime.sessions.rebuild()
    assert await runtime.sessions.run(sid) is None
    assert len(fake.accepted) == 1  # nothing left to continue


async def test_a_refused_answer_is_a_tool_failure_the_model_reads(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(
        {"tool_calls": [_call("c1", "final_answer", {"n": "seven"})]},
        {"tool_calls": [_call("c2", "final_answer", {"n": 7})]},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    runtime.sessions.answers.require(sid, SCHEMA)
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    (failed,) = of_type(await stored(runtime, sid), ev.ToolFailed)
    assert failed.error.type == "tool.input" and "n: 'seven' is not of type 'integer'" in failed.error.message
    assert "is not of type" in str(fake.accepted[1].body["messages"][-1]["content"])
    assert (await runtime.sessions.answers.structured(sid)).value == {"n": 7}  # type: ignore[union-attr]


async def test_forced_steps_send_tool_choice_and_an_invalid_schema_is_refused(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    from agent_tui.core.api import InvalidRequest

    sid = (await runtime.sessions.create(location=workdir)).id
    with pytest.raises(InvalidRequest, match="invalid output schema"):
        runtime.sessions.answers.require(sid, {"type": "nonsense"})
    assert runtime.sessions.answers.required(sid) is None
    runtime.sessions.answers.require(sid, SCHEMA, forced=True)
    fake.add({"tool_calls": [_call("c1", "final_answer", {"n": 1})]})
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    assert fake.accepted[0].body["tool_choice"] == FORCED
    runtime.sessions.answers.require(sid, None)
    fake.add({"text": "free words"})
    await runtime.sessions.prompt(sid, "and now?")
    await settle(runtime, sid)
    assert "final_answer" not in _names(fake.accepted[1].body) and "tool_choice" not in fake.accepted[1].body


@pytest.mark.parametrize("settings_overrides", [{"agents": {"build": {"steps": 2}}}])
async def test_the_final_step_offers_only_final_answer_and_forces_it(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(
        {"tool_calls": [_call("c1", "echo", {"text": "x"})]},
        {"tool_calls": [_call("c2", "final_answer", {"n": 2})]},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    runtime.sessions.answers.require(sid, SCHEMA)
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    first, final = (request.body for request in fake.accepted)
    assert "echo" in _names(first) and "tool_choice" not in first
    assert _names(final) == ["final_answer"] and final["tool_choice"] == FORCED
    last = str(final["messages"][-1]["content"])
    assert "call final_answer now" in last and "tools are unavailable" not in last
    assert (await runtime.sessions.answers.structured(sid)).value == {"n": 2}  # type: ignore[union-attr]


@pytest.mark.parametrize("settings_overrides", [{"models": {"openai/fake-model": {"structured_output": "json"}}}])
async def test_json_mode_sends_the_schema_as_response_format_and_reads_the_text(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    """A model configured for the provider's JSON mode gets no ``final_answer`` tool: the schema goes
    as ``response_format`` and its final text, once it matches, is the answer."""
    fake.add({"text": '{"n": "x"}'}, {"text": '```json\n{"n": 5}\n```'})
    sid = (await runtime.sessions.create(location=workdir)).id
    runtime.sessions.answers.require(sid, SCHEMA)
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    body = fake.accepted[0].body
    assert "final_answer" not in _names(body) and "tool_choice" not in body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert await runtime.sessions.answers.structured(sid) is None  # text that does not match
    await runtime.sessions.prompt(sid, "again")
    await settle(runtime, sid)
    found = await runtime.sessions.answers.structured(sid)
    assert found is not None and found.value == {"n": 5} and found.call_id is None


async def test_a_forced_repair_takes_at_most_three_steps(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    """Each refused answer is corrected at most twice: the repair does not spend the agent's 50 steps."""
    fake.add(*({"tool_calls": [_call(f"c{i}", "final_answer", {"n": "no"})]} for i in range(5)))
    sid = (await runtime.sessions.create(location=workdir)).id
    runtime.sessions.answers.require(sid, SCHEMA, forced=True)
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    assert len(fake.accepted) == 3 and fake.remaining == 2
    assert all(request.body["tool_choice"] == FORCED for request in fake.accepted)
    assert _names(fake.accepted[-1].body) == ["final_answer"]  # the last allowed step
    assert await runtime.sessions.answers.structured(sid) is None
