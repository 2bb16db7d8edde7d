"""MCP server tools in real runs: the fake model calls the fake MCP server (a real process) through the registry."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock
from agent_tui.vocab.kinds import TOOL_INTERRUPTED, McpState

from .conftest import kinds, of_type, settle, stored

SERVER = Path(__file__).resolve().parents[3] / "fakes" / "mcp_server.py"


def notes_server(marks: Path, **env: str) -> dict[str, Any]:
    return {
        "command": [sys.executable, str(SERVER), "stdio"],
        "env": {"FAKE_MCP_MARKS": str(marks), **env},
        "startup_timeout_s": 60,
    }


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


async def _run(runtime: Runtime, workdir: Path, prompt: str) -> str:
    """A new session at ``workdir`` prompted once, settled (the servers' start counts in the time)."""
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, prompt)
    await settle(runtime, sid, timeout=60)
    return sid


async def _appears(path: Path, timeout: float = 60) -> None:
    async def wait() -> None:
        while not path.exists():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(wait(), timeout)


def _tool_results(body: dict) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}


@pytest.fixture
async def mcp_runtime(open_runtime: Any, clock: ManualClock, tmp_path: Path) -> AsyncIterator[Runtime]:
    cli = {"mcp": {"servers": {"notes": notes_server(tmp_path)}}}
    async with await open_runtime(cli=cli, policy="allow", clock=clock) as opened:
        yield opened


async def test_a_server_tool_is_advertised_called_and_its_result_goes_back_to_the_model(
    mcp_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add(_call("call_1", "mcp__notes__echo", {"text": "hello"}), {"text": "done"})
    sid = await _run(mcp_runtime, workdir, "echo hello")
    tools = {t["function"]["name"]: t["function"] for t in fake.accepted[0].body["tools"]}
    assert tools["mcp__notes__echo"]["parameters"]["properties"]["text"]["type"] == "string"
    assert "(MCP server notes) Repeat the text." == tools["mcp__notes__echo"]["description"]
    assert _tool_results(fake.accepted[1].body)["call_1"] == "echo: hello"
    log = await stored(mcp_runtime, sid)
    (called,) = of_type(log, ev.ToolCalled)
    (done,) = of_type(log, ev.ToolSucceeded)
    assert called.name == "mcp__notes__echo" and done.result_meta == {"server": "notes", "tool": "echo"}
    assert kinds(log).index("tool.called") < kinds(log).index("tool.success") < kinds(log).index("step.ended")
    (status,) = [s for s in mcp_runtime.mcp_status() if Path(s.location) == workdir.resolve()]
    assert status.state is McpState.READY and "echo" in status.tools


async def test_an_is_error_result_settles_as_tool_failed_with_the_servers_message(
    mcp_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add(_call("call_1", "mcp__notes__fail", {"message": "quota exceeded"}), {"text": "ok"})
    sid = await _run(mcp_runtime, workdir, "fail")
    (failed,) = of_type(await stored(mcp_runtime, sid), ev.ToolFailed)
    assert failed.error.type == "tool.execution" and "quota exceeded" in failed.error.message
    assert "quota exceeded" in _tool_results(fake.accepted[1].body)["call_1"]


async def test_a_server_that_exits_mid_call_fails_the_tool_and_the_next_call_restarts_it(
    mcp_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add(
        _call("call_1", "mcp__notes__die", {}), _call("call_2", "mcp__notes__echo", {"text": "again"}), {"text": "done"}
    )
    sid = await _run(mcp_runtime, workdir, "die then echo")
    log = await stored(mcp_runtime, sid)
    (failed,) = of_type(log, ev.ToolFailed)
    assert failed.call_id == "call_1" and "exited during die" in failed.error.message
    assert "disk on fire" in failed.error.message
    (done,) = of_type(log, ev.ToolSucceeded)
    assert done.call_id == "call_2" and done.output.text == "echo: again"
    assert "mcp__notes__echo" in {t["function"]["name"] for t in fake.accepted[1].body["tools"]}


async def test_interrupting_a_running_call_cancels_the_request_and_settles_the_tool(
    mcp_runtime: Runtime, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    fake.add(_call("call_1", "mcp__notes__wait", {}), {"text": "never"})
    sid = (await mcp_runtime.sessions.create(location=workdir)).id
    await mcp_runtime.sessions.prompt(sid, "wait")
    await _appears(tmp_path / "wait.started")
    await mcp_runtime.sessions.interrupt(sid)
    await settle(mcp_runtime, sid)
    (failed,) = of_type(await stored(mcp_runtime, sid), ev.ToolFailed)
    assert failed.error.message == TOOL_INTERRUPTED
    await _appears(tmp_path / "wait.cancelled", 20)  # the server saw the request cancelled


async def test_a_call_asks_permission_with_server_tool_and_arguments(
    open_runtime: Any, clock: ManualClock, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    cli = {"mcp": {"servers": {"notes": notes_server(tmp_path)}}}
    async with await open_runtime(cli=cli, clock=clock) as runtime:
        fake.add(_call("call_1", "mcp__notes__echo", {"text": "secret"}), {"text": "fine"})
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "echo")

        async def asked() -> list:
            while not (asks := await runtime.sessions.permissions.pending(sid)):
                await asyncio.sleep(0.02)
            return asks

        (ask,) = await asyncio.wait_for(asked(), 60)
        assert ask.action == "mcp" and ask.resources == ["notes/echo"] and ask.save == ["notes/echo"]
        assert ask.detail == {"server": "notes", "tool": "echo", "arguments": {"text": "secret"}}
        await runtime.sessions.permissions.reply(ask.request_id, "once")
        await settle(runtime, sid, timeout=60)
        assert of_type(await stored(runtime, sid), ev.ToolSucceeded)[0].output.text == "echo: secret"


async def test_a_deny_rule_on_the_pattern_refuses_the_call(
    open_runtime: Any, clock: ManualClock, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    cli = {
        "mcp": {"servers": {"notes": notes_server(tmp_path)}},
        "permission": [{"action": "mcp", "pattern": "notes/ec*", "effect": "deny"}],
    }
    async with await open_runtime(cli=cli, clock=clock) as runtime:
        fake.add(_call("call_1", "mcp__notes__echo", {"text": "x"}), {"text": "ok"})
        sid = await _run(runtime, workdir, "echo")
        (failed,) = of_type(await stored(runtime, sid), ev.ToolFailed)
        assert failed.error.type == "permission.denied" and "notes/echo" in failed.error.message


async def test_an_agent_uses_only_the_servers_it_selects(
    open_runtime: Any, clock: ManualClock, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    cli = {
        "mcp": {"servers": {"notes": notes_server(tmp_path), "other": notes_server(tmp_path)}},
        "agents": {"build": {"mcp": ["other"]}},
    }
    async with await open_runtime(cli=cli, policy="allow", clock=clock) as runtime:
        fake.add({"text": "hi"})
        await _run(runtime, workdir, "hello")
        names = {t["function"]["name"] for t in fake.accepted[0].body.get("tools", [])}
        assert "mcp__other__echo" in names and not any(n.startswith("mcp__notes__") for n in names)


def _toml_server(name: str, marks: Path, instructions: str) -> str:
    command = ", ".join(f'"{part}"' for part in (sys.executable, str(SERVER), "stdio"))
    return (
        f"[mcp.servers.{name}]\ncommand = [{command}]\nstartup_timeout_s = 60\n"
        f'env = {{ FAKE_MCP_MARKS = "{marks}", FAKE_MCP_INSTRUCTIONS = "{instructions}" }}\n'
    )


def _system(body: dict) -> str:
    parts = [m["content"] for m in body["messages"] if m["role"] == "system"]
    return "\n".join(p if isinstance(p, str) else "".join(block["text"] for block in p) for p in parts)


async def test_server_instructions_are_in_the_baseline_and_a_server_added_or_removed_is_an_update(
    runtime: Runtime, fake: FakeProvider, workdir: Path, tmp_path: Path, trusted_projects: None
) -> None:
    config = workdir / ".agent-tui" / "config.toml"
    config.parent.mkdir()
    (workdir / "AGENTS.md").write_text("Project rule: use tabs.")
    config.write_text(_toml_server("notes", tmp_path, "Notes guidance: be terse."))
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    sid = await _run(runtime, workdir, "first")
    system = _system(fake.accepted[0].body)
    assert "Instructions from MCP server notes:\n\nNotes guidance: be terse." in system
    assert system.index("Project rule") < system.index("Notes guidance")  # AGENTS.md, then MCP guidance

    config.write_text(config.read_text() + _toml_server("docs", tmp_path, "Docs guidance: cite pages."))
    await runtime.sessions.prompt(sid, "second")
    await settle(runtime, sid, timeout=60)
    assert _system(fake.accepted[1].body) == system  # the baseline never changes
    (update,) = of_type(await stored(runtime, sid), ev.InstructionsUpdated)
    assert "Notes guidance" in update.text and "Docs guidance" in update.text
    assert update.applied["core/mcp"] == {"notes": "Notes guidance: be terse.", "docs": "Docs guidance: cite pages."}

    config.write_text("")
    await runtime.sessions.prompt(sid, "third")
    await settle(runtime, sid, timeout=60)
    updates = of_type(await stored(runtime, sid), ev.InstructionsUpdated)
    assert len(updates) == 2 and "MCP server instructions were removed" in updates[-1].text
    assert not [s for s in runtime.mcp_status() if Path(s.location) == workdir.resolve()]


async def test_a_session_without_servers_gets_no_mcp_update(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add({"text": "one"}, {"text": "two"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await settle(runtime, sid)
    await runtime.sessions.prompt(sid, "second")
    await settle(runtime, sid)
    assert not of_type(await stored(runtime, sid), ev.InstructionsUpdated)


async def test_closing_the_runtime_during_a_call_ends_the_server_process(
    open_runtime: Any, clock: ManualClock, fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    import os

    cli = {"mcp": {"servers": {"notes": notes_server(tmp_path)}}}
    runtime = await open_runtime(cli=cli, policy="allow", clock=clock)
    fake.add(_call("call_1", "mcp__notes__wait", {}), {"text": "never"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "wait")
    await _appears(tmp_path / "wait.started")
    pid = int((tmp_path / "wait.started").read_text())
    await asyncio.wait_for(runtime.close(), 30)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_sessions_at_one_location_share_one_server_process(
    mcp_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add(
        _call("call_1", "mcp__notes__pid", {}), {"text": "one"}, _call("call_1", "mcp__notes__pid", {}), {"text": "two"}
    )
    first = await _run(mcp_runtime, workdir, "which process?")
    second = await _run(mcp_runtime, workdir, "and you?")
    pids = [of_type(await stored(mcp_runtime, sid), ev.ToolSucceeded)[0].output.text for sid in (first, second)]
    assert pids[0] == pids[1] and pids[0].isdigit()
    assert len([s for s in mcp_runtime.mcp_status() if Path(s.location) == workdir.resolve()]) == 1
