"""``reap_stale_processes``: a dead owner's commands on its own machine, found by their mark and
killed once the database says their call failed as stale; every other marked process is left alone.
Real processes, a real store file."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.host.sweep import reap_stale_processes
from agent_tui.core.log import events as ev
from agent_tui.core.store.store import Store
from agent_tui.tools.process_group import TOOL_MARK_ENV, tool_mark
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import ErrorType
from agent_tui.vocab.tool_output import ToolOutput


@pytest.fixture
def sleepers() -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """One ``sleep`` per mark, in process groups of their own (as a tool's command runs)."""
    started: dict[str, subprocess.Popen[bytes]] = {}

    def start(mark: str) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(["sleep", "60"], env={**os.environ, TOOL_MARK_ENV: mark}, start_new_session=True)
        started[mark] = proc
        return proc

    for call in ("call_stale", "call_running", "call_done", "call_failed"):
        start(tool_mark("ses_1", call))
    start(tool_mark("ses_elsewhere", "call_stale"))  # a session this database does not hold
    yield started
    for proc in started.values():
        proc.kill()
        proc.wait()


async def test_only_processes_of_calls_failed_as_stale_are_killed(
    store: Store, tmp_path: Path, sleepers: dict[str, subprocess.Popen[bytes]]
) -> None:
    def called(call_id: str) -> ev.ToolCalled:
        return ev.ToolCalled(assistant_message_id="msg_a1", call_id=call_id, name="bash", input={"command": "sleep"})

    for event in [
        ev.SessionCreated(location=str(tmp_path), project_root=str(tmp_path)),
        ev.PromptAdmitted(input_id="msg_u1", prompt=ev.text_prompt("go")),
        ev.PromptPromoted(input_id="msg_u1"),
        ev.ExecutionStarted(),
        ev.StepStarted(assistant_message_id="msg_a1", agent="build", model="m1"),
        *(called(call) for call in ("call_stale", "call_running", "call_done", "call_failed")),
        ev.ToolFailed(
            assistant_message_id="msg_a1",
            call_id="call_stale",
            error=ErrorInfo(type=ErrorType.TOOL_STALE, message="interrupted"),
        ),
        ev.ToolSucceeded(assistant_message_id="msg_a1", call_id="call_done", output=ToolOutput(text="ok")),
        ev.ToolFailed(
            assistant_message_id="msg_a1", call_id="call_failed", error=ErrorInfo(type="tool.error", message="no")
        ),
    ]:
        await store.publish("ses_1", event)

    assert await reap_stale_processes(store) == 1
    stale = sleepers.pop(tool_mark("ses_1", "call_stale"))
    assert stale.wait(timeout=10) == -9
    assert all(proc.poll() is None for proc in sleepers.values())  # running, done, failed otherwise, elsewhere
    assert await reap_stale_processes(store) == 0  # nothing left to reap
