"""Config files edited while a runtime is open: the next step uses them; an invalid edit is one
clear error and the input waits for a fixed file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from .conftest import kinds, of_type, settle, stored


def _bash(call_id: str, command: str) -> dict:
    return {"tool_calls": [{"id": call_id, "name": "bash", "arguments": {"command": command}}]}


def _edit(path: Path, text: str) -> None:
    """Write and move the mtime on, as an editor a second later would."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


DENY_BASH = '[[permission]]\naction = "bash"\npattern = "*"\neffect = "deny"\n'
ALLOW_BASH = '[[permission]]\naction = "bash"\npattern = "echo *"\neffect = "allow"\n'


async def test_an_edited_permission_rule_applies_to_the_next_prompt(
    open_runtime: Any, fake: FakeProvider, clock: ManualClock, workdir: Path, trusted_projects: None
) -> None:
    project_config = workdir / ".agent-tui" / "config.toml"
    _edit(project_config, DENY_BASH)
    fake.add(_bash("call_1", "echo one"), {"text": "denied"}, _bash("call_2", "echo two"), {"text": "ran"})
    async with await open_runtime(tools="all", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "first")
        await settle(runtime, sid)
        _edit(project_config, ALLOW_BASH)
        await runtime.sessions.prompt(sid, "second")
        await settle(runtime, sid)
        log = await stored(runtime, sid)
    failed, succeeded = of_type(log, ev.ToolFailed), of_type(log, ev.ToolSucceeded)
    assert [f.call_id for f in failed] == ["call_1"] and failed[0].error.type.startswith("permission.")
    assert [s.call_id for s in succeeded] == ["call_2"] and "two" in succeeded[0].output.text
    assert of_type(log, ev.PermissionAsked) == []  # decided by the rules both times, never asked


async def test_an_invalid_edit_fails_the_run_clearly_and_keeps_the_input(
    open_runtime: Any, fake: FakeProvider, clock: ManualClock, workdir: Path, agent_home: Path
) -> None:
    user_config = agent_home / "config.toml"
    fake.add({"text": "first answer"}, {"text": "second answer"})
    async with await open_runtime(clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "first")
        await settle(runtime, sid)
        _edit(user_config, "[retry]\nmax_retries = -1\n")
        second = await runtime.sessions.prompt(sid, "second")
        await settle(runtime, sid)
        log = await stored(runtime, sid)
        error = of_type(log, ev.ExecutionFailed)[-1].error
        assert error.type == "config.invalid"
        assert str(user_config) in error.message and "retry.max_retries" in error.message
        assert [row.id for row in await runtime.sessions.pending(sid)] == [second.input_id]  # not lost
        _edit(user_config, "[retry]\nmax_retries = 2\n")
        await runtime.sessions.wake(sid)
        await settle(runtime, sid)
        log = await stored(runtime, sid)
    assert kinds(log)[-1] == "execution.succeeded"
    assert of_type(log, ev.TextEnded)[-1].text == "second answer"
