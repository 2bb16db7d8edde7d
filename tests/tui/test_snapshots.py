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
            request_id="perm_1",
            assistant_message_id="msg_s1",
            call_id="c1",
            action="edit",
            resources=["src/app.py"],
            save=["src/*"],
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


def parent_and_child(fake_sessions) -> None:  # noqa: ANN001 - the FakeSessions fixture
    """``ses_parent`` runs a ``task`` call whose child, ``ses_child``, has read a file and now runs ``bash``."""
    parent = LogBuilder(session_id="ses_parent").created(location=LOCATION)
    parent.add(ev.ExecutionStarted())
    parent.prompt("Find why the build is slow")
    amid = parent.step("msg_p")
    parent.text(amid, "I will hand the digging to a subagent.")
    task = {"agent": "explore", "description": "profile the build", "prompt": "Find the slow part of `make`."}
    parent.tool(amid, "call_t", "task", task, output=None)
    child = LogBuilder(session_id="ses_child")
    link = ev.SpawnedBy(session_id="ses_parent", assistant_message_id=amid, call_id="call_t")
    child.add(
        ev.SessionCreated(
            location=LOCATION, project_root=LOCATION, title="profile the build", agent="explore", spawned_by=link
        )
    )
    child.add(ev.ExecutionStarted())
    child.prompt("Find the slow part of `make`.")
    first = "msg_c1"
    child.add(ev.StepStarted(assistant_message_id=first, agent="explore", model="openai/fake"))
    child.tool(first, "c1", "read", {"path": "Makefile"}, output="all: build\n", ms=5)
    child.end_step(first, input_tokens=3_100, output_tokens=240)
    second = "msg_c2"
    child.add(ev.StepStarted(assistant_message_id=second, agent="explore", model="openai/fake"))
    child.tool(second, "c2", "bash", {"command": "make -n all | head"}, output=None)
    for log in (parent, child):
        fake_sessions.add_log(log)
    fake_sessions.running.update({"ses_parent", "ses_child"})
    fake_sessions.parents["ses_child"] = "ses_parent"


async def task_block_followed(app, pilot):  # noqa: ANN001, ANN201 - the app and its pilot
    """The parent on screen, its task block showing the child's progress, with the focus."""
    from agent_tui.tui.widgets.tool_block import ToolCallView

    while True:
        await app.view.feed.poll()  # the periodic check, without waiting for its timer
        blocks = [w for w in app.view.query(ToolCallView) if w.block.name == "task" and w.block.subagent]
        if blocks and blocks[0].painted == blocks[0].block.version:
            break
        await pilot.pause(0.01)
    blocks[0].focus()
    return blocks[0]


def test_task_block_shows_the_running_subagent(snap_compare, fake_sessions, make_app) -> None:
    parent_and_child(fake_sessions)
    app = make_app(StartMode(session_id="ses_parent"))

    async def ready(pilot) -> None:
        await task_block_followed(app, pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_subagent_transcript_screen(snap_compare, fake_sessions, make_app) -> None:
    from agent_tui.tui.screens.child_session import ChildSessionScreen
    from agent_tui.tui.widgets.tool_block import ToolCallView

    parent_and_child(fake_sessions)
    app = make_app(StartMode(session_id="ses_parent"))

    async def ready(pilot) -> None:
        await task_block_followed(app, pilot)
        await pilot.press("enter")
        while not isinstance(app.screen, ChildSessionScreen) or len(app.screen.query(ToolCallView)) < 2:
            await pilot.pause(0.01)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_output_view(snap_compare, fake_sessions, make_app) -> None:
    log = LogBuilder(session_id="ses_out").created(location=LOCATION)
    log.prompt("run the suite")
    amid = log.step("msg_out")
    lines = "".join(f"tests/test_{n:03d}.py ... ok\n" for n in range(120))
    log.tool(amid, "c1", "bash", {"command": "pytest -v"}, output=lines + "120 passed in 3.2s", ms=3200)
    log.end_step(amid)
    fake_sessions.add_log(log)
    app = make_app(StartMode(session_id="ses_out"))

    async def ready(pilot) -> None:
        from textual.widgets import RichLog

        from agent_tui.tui.screens.output_view import OutputView

        while not app.query("ToolCallView"):
            await pilot.pause(0.01)
        await pilot.press("alt+o")
        while not isinstance(app.screen, OutputView) or app.screen.query_one(RichLog).max_scroll_y < 50:
            await pilot.pause(0.01)
        await pilot.press("pagedown")
        await steady_screen(pilot, RichLog)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_history_search(snap_compare, fake_sessions, make_app) -> None:
    from pathlib import Path

    from agent_tui.core.api import paths
    from agent_tui.tui.prompt_history import FILE_NAME, PromptHistory

    history = PromptHistory(str(paths.project_root(Path(LOCATION))), paths.data_dir() / FILE_NAME)
    for text in ["fix the parser", "add tests for the lexer", "fix the flaky test\nand explain why", "update docs"]:
        history.save(text)
    app = make_app()

    async def ready(pilot) -> None:
        from agent_tui.tui.screens.history_search import HistorySearch

        prompt = app.query_one(PromptInput)
        while not prompt.prompts.loaded:
            await pilot.pause(0.01)
        await pilot.press("ctrl+s")
        while not isinstance(app.screen, HistorySearch):
            await pilot.pause(0.01)
        await pilot.press(*"fix")
        while len(app.screen.matches) != 2:
            await pilot.pause(0.01)
        await steady_screen(pilot, Input)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)
