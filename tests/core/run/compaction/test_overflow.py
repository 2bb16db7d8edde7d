"""Context overflow: exactly one compaction, then the same step once more; never a loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui import llm
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.config_validation import load_settings
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from .conftest import kinds, of_type, settle, stored
from .helpers import SUMMARY, dumped, echo, is_summary_request, user_texts

OVERFLOW = {"error": {"status": 400, "kind": "context_overflow"}}


async def _exchange_then(runtime: Runtime, fake: FakeProvider, workdir: Path, *turns: dict[str, Any]) -> str:
    """A first turn with a tool loop, then a second prompt answered by ``turns``."""
    fake.add(echo("call_1", "pong"), {"text": "answer one"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "one")
    await settle(runtime, sid)
    fake.add(*turns)
    await runtime.sessions.prompt(sid, "two")
    await settle(runtime, sid)
    return sid


def _after_second_prompt(log: list[ev.StoredEvent]) -> list[str]:
    names = kinds(log)
    return names[len(names) - 1 - names[::-1].index("prompt.promoted") :]


async def test_overflow_before_output_compacts_once_and_reruns_the_step(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    sid = await _exchange_then(runtime, fake, workdir, OVERFLOW, {"text": SUMMARY}, {"text": "recovered"})
    log = await stored(runtime, sid)
    assert _after_second_prompt(log) == [
        "prompt.promoted",
        "step.started",
        "step.failed",
        "compaction.started",
        "compaction.ended",
        "instructions.baselined",
        "step.started",
        "text.started",
        "text.ended",
        "step.ended",
        "execution.succeeded",
    ]
    failed = of_type(log, ev.StepFailed)[0]
    assert failed.error.type == "provider.context-overflow"
    assert of_type(log, ev.CompactionStarted)[0].reason == "overflow"
    retried = of_type(log, ev.StepStarted)[-1]
    assert retried.assistant_message_id != failed.assistant_message_id  # a fresh row after the checkpoint
    bodies = [r.body for r in fake.accepted]
    assert len(bodies) == 5 and is_summary_request(bodies[3])
    [checkpoint] = user_texts(bodies[4])
    assert "Ship the parser fix." in checkpoint and "User:\ntwo" in checkpoint  # the pending prompt is recent context
    assert "tool_calls" not in dumped(bodies[4]) and '"role": "tool"' not in dumped(bodies[4])
    rows = await runtime._store.messages(sid)
    assert [m.kind for m in rows][-4:] == ["user", "assistant", "compaction", "assistant"]
    assert rows[-1].data["state"] == "ended" and rows[-3].data["state"] == "failed"


async def test_a_second_overflow_is_a_terminal_failure(runtime: Runtime, fake: FakeProvider, workdir: Path) -> None:
    sid = await _exchange_then(runtime, fake, workdir, OVERFLOW, {"text": SUMMARY}, OVERFLOW, {"text": "never"})
    log = await stored(runtime, sid)
    assert _after_second_prompt(log) == [
        "prompt.promoted",
        "step.started",
        "step.failed",
        "compaction.started",
        "compaction.ended",
        "instructions.baselined",
        "step.started",
        "step.failed",
        "execution.failed",
    ]
    assert of_type(log, ev.ExecutionFailed)[0].error.type == "provider.context-overflow"
    assert fake.remaining == 1 and len(fake.accepted) == 5


async def test_a_failed_overflow_compaction_is_a_terminal_failure(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    sid = await _exchange_then(
        runtime, fake, workdir, OVERFLOW, {"error": {"status": 401, "kind": "auth"}}, {"text": "never"}
    )  # not transient: a 5xx would be retried first
    log = await stored(runtime, sid)
    assert _after_second_prompt(log) == [
        "prompt.promoted",
        "step.started",
        "step.failed",
        "compaction.started",
        "compaction.failed",
        "execution.failed",
    ]
    assert of_type(log, ev.ExecutionFailed)[0].error.type == "provider.context-overflow"
    assert not of_type(log, ev.CompactionEnded) and fake.remaining == 1


@pytest.mark.parametrize("settings_overrides", [{"agents": {"build": {"steps": 1}}}])
async def test_recovery_reruns_even_the_last_allowed_step(runtime: Runtime, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "answer one"}, OVERFLOW, {"text": SUMMARY}, {"text": "final words"})
    sid = (await runtime.sessions.create(location=workdir)).id
    for prompt in ("one", "two"):
        await runtime.sessions.prompt(sid, prompt)
        await settle(runtime, sid)
    log = await stored(runtime, sid)
    assert kinds(log)[-1] == "execution.succeeded" and kinds(log).count("compaction.ended") == 1
    rerun = fake.accepted[-1].body
    assert "tools" not in rerun and "final step" in user_texts(rerun)[-1]  # still the final step


class _Overflow(Exception):
    type = "provider.context-overflow"


async def test_overflow_after_output_fails_without_compaction(
    fake: FakeProvider, clock: ManualClock, workdir: Path
) -> None:
    cli = {"model": "openai/fake-model", "api_base": fake.openai_base, "api_key": "test-key"}

    def loader(location: Path) -> Settings:
        return load_settings(location, cli=cli)

    async def overflow_after_text(request: llm.Request) -> AsyncIterator[Any]:
        async for item in llm.stream(request):
            yield item
            if isinstance(item, llm.TextDelta):
                raise _Overflow("prompt is too long")

    fake.add({"text": "partial answer", "chunks": 3}, {"text": SUMMARY})
    async with await Runtime.open(
        loader, permission_policy="allow", clock=clock, stream=overflow_after_text
    ) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "go")
        await settle(runtime, sid)
        log = await stored(runtime, sid)
    assert kinds(log)[-4:] == ["text.started", "text.ended", "step.failed", "execution.failed"]
    partial = of_type(log, ev.TextEnded)[0].text
    assert partial and "partial answer".startswith(partial) and partial != "partial answer"  # the partial text stays
    assert of_type(log, ev.StepFailed)[0].error.type == "provider.context-overflow"
    assert "compaction.started" not in kinds(log) and fake.remaining == 1
