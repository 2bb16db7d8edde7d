"""Layout snapshots at a fixed size with a frozen clock (pytest-textual-snapshot).

Update after an intended change with ``pytest tests/tui/test_snapshots.py --snapshot-update``
and look at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

from textual.widgets import Input

from agent_tui.core.api import events as ev
from agent_tui.tui.app import StartMode
from agent_tui.tui.screens.picker import SessionPicker
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.vocab.kinds import CompactionReason
from tests.fakes.logs import LogBuilder

from .conftest import LOCATION, steady_screen

SIZE = (100, 36)
PATCH = "*** Begin Patch\n*** Update File: src/app.py\n@@ def answer():\n-    return 41\n+    return 42\n*** End Patch"


def rich_session(session_id: str = "ses_main") -> LogBuilder:
    log = LogBuilder(session_id=session_id).created(location=LOCATION)
    log.turn("What does this project do?", "It is a **terminal coding agent**.\n\n- durable log\n- live transcript")
    log.add(ev.ExecutionStarted())
    log.prompt("Fix the off-by-one in answer()")
    amid = log.step("msg_step2")
    log.text(amid, "The test expects 42, the code returns 41.", reasoning=True)
    log.text(amid, "Running the tests first.")
    log.tool(amid, "c1", "bash", {"command": "pytest -q tests/test_app.py"}, output="F\n1 failed in 0.1s", ms=2300)
    log.tool(amid, "c2", "apply_patch", {"patch": PATCH}, output="Updated src/app.py", ms=40)
    log.tool(amid, "c3", "read", {"path": "missing.txt"}, error="no such file: missing.txt", ms=3)
    log.end_step(amid, input_tokens=12_400, output_tokens=830, cost=0.0123)
    log.add(ev.ExecutionSucceeded())
    log.add(ev.CompactionAdmitted(input_id="inp_c"))
    log.add(ev.CompactionStarted(message_id="msg_c", reason=CompactionReason.MANUAL, input_id="inp_c"))
    log.add(
        ev.CompactionEnded(
            message_id="msg_c", reason=CompactionReason.MANUAL, summary="## Objective\nfix", recent="", input_id="inp_c"
        )
    )
    log.prompt("then update the changelog", delivery="queue", promote=False)
    return log


def test_main_screen(snap_compare, fake_sessions, make_app) -> None:
    fake_sessions.add_log(rich_session())
    app = make_app(StartMode(session_id="ses_main"))

    async def ready(pilot) -> None:
        # all 9 blocks: the newest 8 first, then the one above them, mounted by the "fill" worker
        while (
            not app.view.synced
            or len(app.view.query_one("#transcript").children) < 9
            or any(worker.group == "fill" and not worker.is_finished for worker in app.workers)
        ):
            await pilot.pause(0.01)
        await steady_screen(pilot, PromptInput)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_picker(snap_compare, fake_sessions, make_app) -> None:
    for n, title in enumerate(["refactor the parser", "fix flaky test", "write the user guide"]):
        log = LogBuilder(session_id=f"ses_{n}").created(location=LOCATION)
        log.now_ms -= (n + 1) * 3_600_000
        log.prompt(title)  # one message each, as the store counts a prompt the runner has not answered yet
        fake_sessions.add_log(log)
    fake_sessions.running.add("ses_1")
    app = make_app(StartMode(picker=True))

    async def ready(pilot) -> None:
        while not isinstance(app.screen, SessionPicker) or len(app.screen.rows) < 3:
            await pilot.pause(0.01)
        await steady_screen(pilot, Input)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_permission_panel(snap_compare, fake_sessions, make_app) -> None:
    log = LogBuilder(session_id="ses_ask").created(location=LOCATION)
    log.add(ev.ExecutionStarted())
    log.prompt("apply the fix")
    log.step("msg_s1")
    log.text("msg_s1", "Patching the function.")
    log.add(ev.ToolCalled(assistant_message_id="msg_s1", call_id="c1", name="apply_patch", input={"patch": PATCH}))
    log.add(
        ev.PermissionAsked(
            request_id="perm_1", assistant_message_id="msg_s1", call_id="c1", action="edit", resources=["src/app.py"]
        )
    )
    fake_sessions.add_log(log)
    fake_sessions.running.add("ses_ask")
    app = make_app(StartMode(session_id="ses_ask"))

    async def ready(pilot) -> None:
        while not app.view.query_one("#permission").display:
            await pilot.pause(0.01)
        await steady_screen(pilot, PermissionPanel)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)
