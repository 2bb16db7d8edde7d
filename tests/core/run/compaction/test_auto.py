"""Automatic compaction before a step whose request would not fit the model's budget."""

from __future__ import annotations

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, of_type, settle, small_window, stored
from .helpers import SUMMARY, dumped, echo, is_summary_request, roles, user_texts

BIG = "A" * 2_000


@pytest.fixture
def settings_overrides() -> dict:
    # budget = 1 600 - max(40, 50) = 1 550 tokens; recent context at most 100 tokens (400 characters)
    return small_window(1_600, buffer=50, keep_tokens=100)


async def test_over_budget_compacts_before_the_pending_step(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add(
        echo("call_1", BIG, reasoning="thinking about the big one"),
        # the provider reports 1 540 input tokens for this request: with its own output the next one is over budget
        echo("call_2", "small-beta", usage={"input": 1_540, "output": 5}),
        {"text": SUMMARY},
        {"text": "done"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)

    log = await stored(runtime, sid)
    names = kinds(log)
    assert names.count("step.started") == 3 and names.count("compaction.started") == 1
    steps = [i for i, k in enumerate(names) if k == "step.ended"]
    started = names.index("compaction.started")
    assert steps[1] < started < names.index("compaction.ended") < names.index("step.started", started) < steps[2]
    assert names.index("instructions.baselined", started) < names.index("step.started", started)  # re-baselined
    begun = of_type(log, ev.CompactionStarted)[0]
    assert begun.reason == "auto" and begun.input_id is None
    ended = of_type(log, ev.CompactionEnded)[0]

    # recent context: bounded, whole steps only — the small step with its call and result, not the big one
    assert len(ended.recent) <= 400
    assert '[tool call echo {"text": "small-beta"}]\n[tool result ok]\nsmall-beta' in ended.recent
    assert BIG not in ended.recent and "thinking" not in ended.recent

    bodies = [r.body for r in fake.accepted]
    assert is_summary_request(bodies[2]) and BIG[:100] in user_texts(bodies[2])[0]
    pending = bodies[3]
    assert roles(pending) == ["system", "system", "user"] and "tools" in pending
    [checkpoint] = user_texts(pending)
    assert "<system-reminder>" in checkpoint and "Ship the parser fix." in checkpoint and "small-beta" in checkpoint
    text = dumped(pending)
    assert "tool_calls" not in text and '"role": "tool"' not in text and "assistant" not in text
    assert "thinking about the big one" not in text and BIG not in text

    messages = await runtime._store.messages(sid)
    assert [m.kind for m in messages] == ["user", "assistant", "assistant", "compaction", "assistant"]
    assert len(of_type(log, ev.ToolCalled)) == 2  # the full transcript stays in the log


async def test_under_budget_never_compacts(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add(echo("call_1", "x" * 400), {"text": "done"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    log = kinds(await stored(runtime, sid))
    assert "compaction.started" not in log and log[-1] == "execution.succeeded"


@pytest.mark.parametrize("settings_overrides", [small_window(1_600, buffer=50, keep_tokens=100)])
async def test_a_failed_automatic_compaction_stops_the_run_and_changes_nothing(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(
        echo("call_1", BIG),
        echo("call_2", "b", usage={"input": 1_540, "output": 5}),
        {"error": {"status": 400, "kind": "invalid_request", "message": "bad summary request"}},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    names = kinds(log)
    assert names[-3:] == ["compaction.started", "compaction.failed", "execution.failed"]
    assert names.count("step.started") == 2 and len(fake.accepted) == 3
    failed = of_type(log, ev.ExecutionFailed)[0]
    assert failed.error.type == "provider.invalid-request"
    rows = await runtime._store.messages(sid)
    assert [m.kind for m in rows] == ["user", "assistant", "assistant", "compaction"]
    assert rows[-1].data["state"] == "failed" and rows[-1].data["summary"] is None


@pytest.mark.parametrize("settings_overrides", [{"compaction": {"buffer": 10}}])
async def test_unknown_window_warns_once_and_runs_without_compaction(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    sid = (await runtime.sessions.create(location=workdir)).id
    for prompt in ("first", "second"):
        await runtime.sessions.prompt(sid, prompt)
        await settle(runtime, sid)
    other = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(other, "elsewhere")
    await settle(runtime, other)
    for session_id, runs in ((sid, 2), (other, 1)):
        log = await stored(runtime, session_id)
        warnings = of_type(log, ev.CompactionFailed)
        assert len(warnings) == 1 and warnings[0].error.type == "compaction.unavailable"
        assert warnings[0].message_id is None and warnings[0].input_id is None
        assert 'set [models."openai/fake-model"] context_window' in warnings[0].error.message
        assert kinds(log).count("execution.succeeded") == runs and "compaction.started" not in kinds(log)
        assert [m.kind for m in await runtime._store.messages(session_id)] == ["user", "assistant"] * runs


async def test_small_sessions_with_an_unknown_window_carry_no_warning(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    """Below ``compaction.buffer`` tokens no window could be too small: the warning waits until it matters."""
    fake.add({"text": "one"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "hi")
    await settle(runtime, sid)
    assert "compaction.failed" not in kinds(await stored(runtime, sid))


@pytest.mark.parametrize("settings_overrides", [small_window(300, buffer=10, max_output=10)])
async def test_no_compaction_when_the_fixed_part_alone_is_over_budget(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    """System prompt and tool definitions exceed 290 tokens: summarising history could not help."""
    fake.add(echo("call_1", "x" * 2_000), {"text": "done"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    log = kinds(await stored(runtime, sid))
    assert "compaction.started" not in log and log.count("step.started") == 2 and log[-1] == "execution.succeeded"
