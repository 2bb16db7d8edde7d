"""Agents in steps, over the fake provider: the plan agent cannot edit (a real ``apply_patch`` call
is refused although the run's policy answers yes), its prompt, a tool filter both ways, and each
agent's model and temperature in its requests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock
from tests.core.run.compaction.helpers import texts

from .conftest import of_type, settle, stored

PATCH = "*** Begin Patch\n*** Add File: made.txt\n+made\n*** End Patch"


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def _system(body: dict[str, Any]) -> str:
    return "\n".join(texts(m) for m in body["messages"] if m["role"] == "system")


def _offered(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


@pytest.fixture
async def runtime(open_runtime: Any, clock: ManualClock) -> AsyncIterator[Runtime]:
    """Every real tool and a policy that answers yes to every ask (``run --permission allow``),
    over a user config that allows everything."""
    cli = {
        "permission": [{"action": "*", "pattern": "*", "effect": "allow"}],
        "agents": {
            "reviewer": {"model": "openai/reviewer-model", "temperature": 0.25, "tools": ["read", "echo"]},
            "plain": {},
        },
    }
    async with await open_runtime(cli=cli, policy="allow", tools="all", clock=clock) as opened:
        yield opened


async def test_the_plan_agent_cannot_edit_even_when_every_ask_is_answered_yes(
    runtime: Runtime, fake: FakeProvider, workdir: Path, litellm_loaded: None
) -> None:
    fake.add(
        _call("call_1", "apply_patch", {"patch": PATCH}),
        _call("call_2", "bash", {"command": "ls; touch made-by-bash.txt"}),
        _call("call_3", "bash", {"command": "ls"}),
        {"text": "Plan: add made.txt."},
    )
    sid = (await runtime.sessions.create(location=workdir, agent="plan")).id
    await runtime.sessions.prompt(sid, "add a file")
    await settle(runtime, sid)

    assert not (workdir / "made.txt").exists() and not (workdir / "made-by-bash.txt").exists()
    log = await stored(runtime, sid)
    failed = {f.call_id: f.error for f in of_type(log, ev.ToolFailed)}
    assert failed["call_1"].type == "permission.denied"
    assert "the plan agent may not edit 'made.txt'" in failed["call_1"].message
    assert "the plan agent may not bash 'touch made-by-bash.txt'" in failed["call_2"].message
    assert "call_3" not in failed  # ls only reads
    assert not of_type(log, ev.PermissionAsked)  # denied, never asked
    first = fake.accepted[0].body
    assert "apply_patch" not in _offered(first) and {"read", "bash"} <= set(_offered(first))
    assert "You are the plan agent" in _system(first)


async def test_build_may_edit_in_the_same_setup(
    runtime: Runtime, fake: FakeProvider, workdir: Path, litellm_loaded: None
) -> None:
    fake.add(_call("call_1", "apply_patch", {"patch": PATCH}), {"text": "done"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "add a file")
    await settle(runtime, sid)
    assert (workdir / "made.txt").read_text() == "made\n"
    assert "You are the plan agent" not in _system(fake.accepted[0].body)


async def test_an_agents_tools_filter_what_it_is_offered_and_what_it_may_call(
    runtime: Runtime, fake: FakeProvider, workdir: Path, litellm_loaded: None
) -> None:
    fake.add(_call("call_1", "bash", {"command": "touch x"}), _call("call_2", "echo", {"text": "hi"}), {"text": "ok"})
    sid = (await runtime.sessions.create(location=workdir, agent="reviewer")).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    assert sorted(_offered(fake.accepted[0].body)) == ["echo", "read"]
    log = await stored(runtime, sid)
    failed = {f.call_id: f.error for f in of_type(log, ev.ToolFailed)}
    assert failed["call_1"].message == "The reviewer agent has no tool 'bash': it may call only read, echo."
    assert "call_2" not in failed and not (workdir / "x").exists()


async def test_each_agents_model_and_temperature_reach_its_requests(
    runtime: Runtime, fake: FakeProvider, workdir: Path, litellm_loaded: None
) -> None:
    fake.add({"text": "one"}, {"text": "two"})
    sid = (await runtime.sessions.create(location=workdir)).id
    for agent in ("reviewer", "plain"):
        await runtime.sessions.select_agent(sid, agent)
        await runtime.sessions.prompt(sid, f"as {agent}")
        await settle(runtime, sid)
    reviewer, plain = (request.body for request in fake.accepted)
    assert (reviewer["model"], reviewer.get("temperature")) == ("reviewer-model", 0.25)
    assert plain["model"] == "fake-model" and "temperature" not in plain
    started = of_type(await stored(runtime, sid), ev.StepStarted)
    assert [(s.agent, s.model) for s in started] == [
        ("reviewer", "openai/reviewer-model"),
        ("plain", "openai/fake-model"),
    ]
