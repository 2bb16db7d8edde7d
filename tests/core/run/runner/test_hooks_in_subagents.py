"""A subagent's session runs the tool hooks, not the prompt, start and stop hooks (as in Claude Code)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.testing.fake_provider import FakeProvider
from tests.routed_fake import Routes, task_call

from .conftest import of_type, settle, stored


@pytest.fixture
def fake(routed_fake: FakeProvider) -> FakeProvider:
    return routed_fake


async def test_a_child_session_runs_only_the_tool_hooks(
    open_runtime: Any, agent_home: Path, routes: Routes, workdir: Path, tmp_path: Path, litellm_loaded: None
) -> None:
    seen = tmp_path / "seen.jsonl"
    hooks = "".join(
        f'[[hooks]]\nevent = "{event}"\ncommand = "cat >> {seen}; echo >> {seen}"\n'
        for event in ("session_start", "user_prompt", "pre_tool", "stop")
    )
    (agent_home / "config.toml").write_text(hooks)
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: look")]}, {"text": "the child said 42"})
    routes.add("CHILD-A", {"tool_calls": [{"id": "c1", "name": "echo", "arguments": {"text": "x"}}]}, {"text": "42"})
    async with await open_runtime(tools="all", policy="allow") as runtime:
        parent = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(parent, "PARENT: ask a child")
        await settle(runtime, parent, timeout=30)
        (result,) = of_type(await stored(runtime, parent), ev.ToolSucceeded)
        child = result.output.data["session_id"]
        child_hooks = of_type(await stored(runtime, child), ev.HookRan)
    told = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert [(t["hook_event_name"], t["session_id"] == child) for t in told] == [
        ("SessionStart", False),
        ("UserPromptSubmit", False),
        ("PreToolUse", False),  # the parent's task call
        ("PreToolUse", True),  # the child's echo call
        ("Stop", False),
    ]
    assert [(r.hook_event, r.tool_name) for r in child_hooks] == [("pre_tool", "echo")]
