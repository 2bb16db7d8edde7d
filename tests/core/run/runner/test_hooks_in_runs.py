"""Hooks in real runs: real bash processes for the hooks and the tools, the fake provider for the model."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import of_type, reminders, settle, stored


@pytest.fixture
async def hooked(open_runtime: Any, agent_home: Path, litellm_loaded: None) -> AsyncIterator[Any]:
    """``await hooked(*hooks)``: a runtime with the built-in tools, every ask allowed, and ``hooks``
    in the user's config file (user-level hooks always run)."""
    opened: list[Runtime] = []

    async def open_with(*hooks: dict[str, Any]) -> Runtime:
        lines = []
        for hook in hooks:
            lines.append("[[hooks]]")
            lines.extend(f"{key} = {json.dumps(value)}" for key, value in hook.items())
        (agent_home / "config.toml").write_text("\n".join(lines) + "\n")
        runtime = await open_runtime(tools="all", policy="allow")
        opened.append(runtime)
        return runtime

    yield open_with
    for runtime in opened:
        await runtime.close()


def _bash(call_id: str, command: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "bash", "arguments": {"command": command}}]}


def _tool_message(body: dict[str, Any]) -> str:
    return next(str(m["content"]) for m in body["messages"] if m["role"] == "tool")


async def _run(runtime: Runtime, workdir: Path, prompt: str) -> tuple[str, list[ev.StoredEvent]]:
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, prompt)
    await settle(runtime, sid, timeout=30)
    return sid, await stored(runtime, sid)


async def test_a_pre_tool_hook_that_exits_2_blocks_the_call_and_the_model_reads_why(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.json"
    runtime = await hooked(
        {
            "event": "pre_tool",
            "matcher": "bash",
            "command": f"cat > {seen}; echo 'no writes here, use apply_patch' >&2; exit 2",
        }
    )
    fake.add(_bash("call_1", "echo hi > created.txt"), {"text": "understood"})
    sid, log = await _run(runtime, workdir, "make a file")
    assert not (workdir / "created.txt").exists()
    failed = of_type(log, ev.ToolFailed)[0]
    assert failed.error.type == "hook.blocked" and "no writes here" in failed.error.message
    assert "no writes here, use apply_patch" in _tool_message(fake.accepted[1].body)
    told = json.loads(seen.read_text())
    assert told["hook_event_name"] == "PreToolUse" and told["tool_name"] == "bash"
    assert told["tool_input"]["command"] == "echo hi > created.txt"
    assert told["session_id"] == sid and told["cwd"] == str(workdir)
    ran = of_type(log, ev.HookRan)
    assert [(r.hook_event, r.outcome, r.exit_code, r.call_id) for r in ran] == [("pre_tool", "blocked", 2, "call_1")]


async def test_hooks_that_allow_run_around_the_tool_and_see_its_result(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    pre, post = tmp_path / "pre.json", tmp_path / "post.json"
    runtime = await hooked(
        {"event": "pre_tool", "matcher": "ba*", "command": f"cat > {pre}"},
        {"event": "post_tool", "command": f"cat > {post}"},
        {"event": "pre_tool", "matcher": "read", "command": "echo never >&2; exit 2"},
    )
    fake.add(_bash("call_1", "echo made > created.txt && echo done"), {"text": "ok"})
    _, log = await _run(runtime, workdir, "make a file")
    assert (workdir / "created.txt").read_text() == "made\n"
    assert json.loads(pre.read_text())["tool_input"]["command"].startswith("echo made")
    after = json.loads(post.read_text())
    assert after["hook_event_name"] == "PostToolUse" and after["tool_response"]["success"] is True
    assert after["tool_response"]["output"].startswith("done")
    assert [(r.hook_event, r.outcome) for r in of_type(log, ev.HookRan)] == [("pre_tool", "ok"), ("post_tool", "ok")]
    assert of_type(log, ev.ToolSucceeded)


async def test_a_hook_that_crashes_is_a_warning_and_the_tool_runs(
    hooked: Any, fake: FakeProvider, workdir: Path
) -> None:
    runtime = await hooked({"event": "pre_tool", "command": "echo 'script broke' >&2; exit 7"})
    fake.add(_bash("call_1", "echo made > created.txt"), {"text": "ok"})
    _, log = await _run(runtime, workdir, "make a file")
    assert (workdir / "created.txt").exists()
    [ran] = of_type(log, ev.HookRan)
    assert ran.outcome == "warning" and ran.exit_code == 7 and "script broke" in (ran.message or "")


async def test_a_hook_that_times_out_has_its_process_group_killed_and_the_tool_runs(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "child.pid"
    runtime = await hooked(
        {"event": "pre_tool", "timeout": 0.5, "command": f"sleep 300 & echo $! > {pid_file}; wait"},
    )
    fake.add(_bash("call_1", "echo made > created.txt"), {"text": "ok"})
    _, log = await _run(runtime, workdir, "make a file")
    [ran] = of_type(log, ev.HookRan)
    assert ran.outcome == "timeout" and ran.exit_code is None
    assert (workdir / "created.txt").exists()
    assert not _alive(int(pid_file.read_text()))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie not yet reaped is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


async def test_an_interrupt_kills_the_running_hook(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "child.pid"
    runtime = await hooked({"event": "pre_tool", "command": f"sleep 300 & echo $! > {pid_file}; wait"})
    fake.add(_bash("call_1", "echo made > created.txt"), {"text": "never"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "make a file")

    async def started() -> None:
        while not pid_file.exists() or not pid_file.read_text().strip():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(started(), 30)
    await runtime.sessions.interrupt(sid)
    log = await stored(runtime, sid)
    assert [r.outcome for r in of_type(log, ev.HookRan)] == ["interrupted"]
    assert not (workdir / "created.txt").exists()
    assert not _alive(int(pid_file.read_text()))


async def test_user_prompt_hook_output_is_context_for_the_model(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "prompt.json"
    runtime = await hooked({"event": "user_prompt", "command": f"cat > {seen}; echo 'Ticket ABC-42 is about parsing.'"})
    fake.add({"text": "ok"})
    _, log = await _run(runtime, workdir, "what is my ticket about?")
    told = json.loads(seen.read_text())
    assert told["hook_event_name"] == "UserPromptSubmit" and told["prompt"] == "what is my ticket about?"
    assert any("Ticket ABC-42 is about parsing." in text for text in reminders(fake.accepted[0].body))
    texts = [str(m.get("content")) for m in fake.accepted[0].body["messages"] if m["role"] == "user"]
    asked = next(i for i, t in enumerate(texts) if "what is my ticket about?" in t)
    assert asked < next(i for i, t in enumerate(texts) if "ABC-42" in t)  # the context follows the prompt
    [ran] = of_type(log, ev.HookRan)
    assert ran.outcome == "ok" and ran.context and "ABC-42" in ran.context
    assert [type(e.event).__name__ for e in log if isinstance(e.event, ev.PromptPromoted | ev.HookRan)] == [
        "PromptPromoted",
        "HookRan",
    ]


async def test_a_rewind_to_a_prompt_takes_its_hook_context_back(hooked: Any, fake: FakeProvider, workdir: Path) -> None:
    runtime = await hooked({"event": "user_prompt", "command": "echo 'context for this prompt'"})
    fake.add({"text": "one"}, {"text": "two"})
    sid, _ = await _run(runtime, workdir, "FIRST prompt")
    first = next(m for m in await runtime._store.messages(sid) if m.kind == "user")
    await runtime.sessions.rewind(sid, first.id)
    await runtime.sessions.prompt(sid, "SECOND prompt")
    await settle(runtime, sid, timeout=30)
    told = reminders(fake.accepted[1].body)
    assert len([t for t in told if "context for this prompt" in t]) == 1  # the second prompt's, not the first's too
    assert "FIRST" not in str(fake.accepted[1].body["messages"])


async def test_a_user_prompt_hook_that_exits_2_keeps_the_prompt_from_the_model(
    hooked: Any, fake: FakeProvider, workdir: Path
) -> None:
    runtime = await hooked({"event": "user_prompt", "command": "echo 'no secrets in prompts' >&2; exit 2"})
    fake.add({"text": "never"})
    sid, log = await _run(runtime, workdir, "my password is hunter2")
    assert fake.accepted == [] and fake.remaining == 1
    assert of_type(log, ev.PromptWithdrawn) and not of_type(log, ev.PromptPromoted)
    [ran] = of_type(log, ev.HookRan)
    assert ran.outcome == "blocked" and ran.message == "no secrets in prompts"
    assert not [m for m in await runtime._store.messages(sid) if m.kind == "user"]


async def test_session_start_hook_output_reaches_the_model_once(hooked: Any, fake: FakeProvider, workdir: Path) -> None:
    runtime = await hooked(
        {"event": "session_start", "matcher": "startup", "command": "echo 'Branch: feature/x'"},
        {"event": "session_start", "matcher": "resume", "command": "echo 'never: not a resumed session'"},
    )
    fake.add({"text": "one"}, {"text": "two"})
    sid, _ = await _run(runtime, workdir, "first")
    await runtime.sessions.prompt(sid, "second")
    await settle(runtime, sid, timeout=30)
    log = await stored(runtime, sid)
    assert [r.hook_event for r in of_type(log, ev.HookRan)] == ["session_start"]
    assert any("Branch: feature/x" in text for text in reminders(fake.accepted[0].body))


async def test_a_stop_hook_that_exits_2_keeps_the_agent_going_with_the_reason(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    count = tmp_path / "count"
    script = (
        f"n=$(cat {count} 2>/dev/null || echo 0); echo $((n+1)) > {count}; cat > {tmp_path}/stop-$n.json; "
        "if [ $n = 0 ]; then echo 'run the tests first' >&2; exit 2; fi"
    )
    runtime = await hooked({"event": "stop", "command": script})
    fake.add({"text": "done"}, {"text": "tests pass, done"})
    _, log = await _run(runtime, workdir, "fix it")
    assert len(fake.accepted) == 2
    assert any("run the tests first" in text for text in reminders(fake.accepted[1].body))
    assert [r.outcome for r in of_type(log, ev.HookRan)] == ["blocked", "ok"]
    told = [json.loads((tmp_path / f"stop-{n}.json").read_text()) for n in (0, 1)]
    assert [(t["hook_event_name"], t["stop_hook_active"]) for t in told] == [("Stop", False), ("Stop", True)]


GUARD = """import json, sys
told = json.load(sys.stdin)
open(sys.argv[1], "w").write(json.dumps(told))
if "rm " in told["tool_input"].get("command", ""):
    print("Blocked by the team's guard: no rm", file=sys.stderr)
    sys.exit(2)
"""


def _claude_project(workdir: Path, tmp_path: Path) -> Path:
    """A project whose ``.claude/settings.json`` has a PreToolUse guard on Bash, as Claude Code users write it."""
    (tmp_path / "guard.py").write_text(GUARD)
    seen = tmp_path / "seen.json"
    command = f"python3 {tmp_path / 'guard.py'} {seen}"
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}}
    (workdir / ".claude").mkdir()
    (workdir / ".claude" / "settings.json").write_text(json.dumps(settings))
    (workdir / "victim.txt").write_text("keep me")
    return seen


@pytest.fixture
def stored_trust_only():  # type: ignore[no-untyped-def]
    from agent_tui.core.settings import trust

    trust.assume(None)
    yield trust
    trust.assume(None)


async def test_claude_settings_hooks_run_unchanged_in_a_trusted_project(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path, stored_trust_only: Any
) -> None:
    from agent_tui.core.settings.config_layers import read_layers

    seen = _claude_project(workdir, tmp_path)
    untrusted = read_layers(workdir, environ={}).untrusted
    assert untrusted is not None
    stored_trust_only.trust(untrusted.config, untrusted.powers)
    runtime = await hooked()
    fake.add(_bash("call_1", "rm victim.txt"), {"text": "ok"})
    _, log = await _run(runtime, workdir, "clean up")
    assert (workdir / "victim.txt").exists()
    told = json.loads(seen.read_text())
    assert told["tool_name"] == "Bash" and told["hook_event_name"] == "PreToolUse"
    assert told["tool_input"]["command"] == "rm victim.txt"
    assert "Blocked by the team's guard: no rm" in _tool_message(fake.accepted[1].body)
    assert [r.outcome for r in of_type(log, ev.HookRan)] == ["blocked"]


async def test_claude_settings_hooks_never_run_in_an_untrusted_project(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path, stored_trust_only: Any
) -> None:
    seen = _claude_project(workdir, tmp_path)
    runtime = await hooked()
    fake.add(_bash("call_1", "rm victim.txt"), {"text": "ok"})
    _, log = await _run(runtime, workdir, "clean up")
    assert not seen.exists() and not of_type(log, ev.HookRan)
    assert not (workdir / "victim.txt").exists()  # nothing guarded it: the project's hook did not run


async def test_a_notification_hook_runs_when_a_permission_ask_is_raised(
    open_runtime: Any, agent_home: Path, fake: FakeProvider, workdir: Path, tmp_path: Path, litellm_loaded: None
) -> None:
    seen = tmp_path / "notice.json"
    (agent_home / "config.toml").write_text(f'[[hooks]]\nevent = "notification"\ncommand = "cat > {seen}"\n')
    fake.add(_bash("call_1", "echo hi"), {"text": "ok"})
    async with await open_runtime(tools="all") as runtime:  # no policy: the user is asked
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "say hi")

        async def ran() -> list[Any]:
            while not (done := of_type(await stored(runtime, sid), ev.HookRan)):
                await asyncio.sleep(0.01)
            return done

        [notice] = await asyncio.wait_for(ran(), 30)
        assert notice.hook_event == "notification" and notice.outcome == "ok"
        told = json.loads(seen.read_text())
        assert told["hook_event_name"] == "Notification" and "echo hi" in told["message"]
        assert told["notification_type"] == "permission_prompt"
        [ask] = await runtime.sessions.permissions.pending(sid)
        await runtime.sessions.permissions.reply(ask.request_id, "once")
        await settle(runtime, sid, timeout=30)


async def test_post_tool_hooks_see_a_failed_call_but_claude_format_ones_only_successes(
    hooked: Any, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    ours, claudes = tmp_path / "ours.json", tmp_path / "claude.json"
    runtime = await hooked(
        {"event": "post_tool", "command": f"cat > {ours}"},
        {"event": "post_tool", "format": "claude", "matcher": "Read", "command": f"cat > {claudes}"},
    )
    fake.add({"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "missing.txt"}}]}, {"text": "ok"})
    _, log = await _run(runtime, workdir, "read it")
    assert of_type(log, ev.ToolFailed)
    response = json.loads(ours.read_text())["tool_response"]
    assert response["success"] is False and response["error"]
    assert not claudes.exists()
    assert [r.hook_event for r in of_type(log, ev.HookRan)] == ["post_tool"]


async def test_closing_the_runtime_stops_a_notification_hook_still_running(
    open_runtime: Any, agent_home: Path, fake: FakeProvider, workdir: Path, tmp_path: Path, litellm_loaded: None
) -> None:
    pid_file = tmp_path / "notice.pid"
    hook = f"sleep 300 & echo $! > {pid_file}; wait"
    (agent_home / "config.toml").write_text(f'[[hooks]]\nevent = "notification"\ncommand = "{hook}"\n')
    fake.add(_bash("call_1", "echo hi"), {"text": "ok"})
    runtime = await open_runtime(tools="all")
    try:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "say hi")

        async def asked_and_started() -> list[Any]:
            while not (asks := await runtime.sessions.permissions.pending(sid)) or not pid_file.exists():
                await asyncio.sleep(0.01)
            while not pid_file.read_text().strip():
                await asyncio.sleep(0.01)
            return asks

        [ask] = await asyncio.wait_for(asked_and_started(), 30)
        await runtime.sessions.permissions.reply(ask.request_id, "once")
        await settle(runtime, sid, timeout=30)  # the turn ends; the notification hook still runs
        assert _alive(int(pid_file.read_text()))
    finally:
        await runtime.close()
    assert not _alive(int(pid_file.read_text()))


async def test_a_hook_may_answer_in_claudes_json_on_stdout(hooked: Any, fake: FakeProvider, workdir: Path) -> None:
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "use the task runner",
        }
    }
    context = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Sprint 12"}}
    runtime = await hooked(
        {"event": "user_prompt", "command": f"echo '{json.dumps(context)}'"},
        {"event": "pre_tool", "format": "claude", "matcher": "Bash", "command": f"echo '{json.dumps(deny)}'"},
    )
    fake.add(_bash("call_1", "echo made > created.txt"), {"text": "ok"})
    _, log = await _run(runtime, workdir, "make a file")
    assert not (workdir / "created.txt").exists()
    assert "use the task runner" in _tool_message(fake.accepted[1].body)
    told = reminders(fake.accepted[0].body)
    assert any("Sprint 12" in text for text in told) and not any("hookSpecificOutput" in text for text in told)
    assert [(r.hook_event, r.outcome) for r in of_type(log, ev.HookRan)] == [
        ("user_prompt", "ok"),
        ("pre_tool", "blocked"),
    ]


async def test_a_hook_sees_no_secret_it_was_not_given(
    open_runtime: Any, agent_home: Path, fake: FakeProvider, workdir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """A hook starts with what a ``bash`` command gets: provider keys and tokens stripped, but those
    ``[shell] env include`` names; plus where it runs."""
    seen = tmp_path / "env.txt"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "gh-secret")
    monkeypatch.setenv("KEEP_TOKEN", "kept")
    (agent_home / "config.toml").write_text(
        f'[shell.env]\ninclude = ["KEEP_TOKEN"]\n\n[[hooks]]\nevent = "pre_tool"\ncommand = "env > {seen}"\n'
    )
    fake.add(_bash("c1", "true"), {"text": "done"})
    async with await open_runtime(tools="all", policy="allow") as runtime:
        sid, _ = await _run(runtime, workdir, "go")
    env = dict(line.split("=", 1) for line in seen.read_text().splitlines() if "=" in line)
    assert "OPENAI_API_KEY" not in env and "GITHUB_TOKEN" not in env
    assert env["KEEP_TOKEN"] == "kept" and env["AGENT_TUI_SESSION"] == sid
