"""A tool call's whole output, full screen: Alt+O (the newest) or ``o`` on a focused block; it pages and closes."""

from __future__ import annotations

from textual.widgets import RichLog

from agent_tui.core.api import events as ev
from agent_tui.tui.app import StartMode
from agent_tui.tui.screens.output_view import OutputView
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.tool_block import ToolCallView
from tests.fakes.logs import LogBuilder
from tests.tui.conftest import LOCATION
from tests.tui.test_app import SID, until

LINES = "".join(f"line {n}\n" for n in range(1, 301))


def with_tools(fake_sessions, running: bool = False) -> LogBuilder:
    log = LogBuilder(session_id=SID).created(location=LOCATION)
    log.prompt("build it")
    amid = log.step("msg_a")
    log.tool(amid, "c1", "bash", {"command": "seq"}, output=LINES)
    log.tool(amid, "c2", "bash", {"command": "echo hi"}, output="hi\n")
    if not running:
        log.end_step(amid)
    fake_sessions.add_log(log)
    if running:
        fake_sessions.running.add(SID)
    return log


def output_view(app) -> OutputView:
    assert isinstance(app.screen, OutputView)
    return app.screen


async def test_a_folded_output_shows_its_last_lines_and_unfolding_hides_them(fake_sessions, make_app) -> None:
    with_tools(fake_sessions)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query(ToolCallView)) == 2)
        tool = app.query(ToolCallView).first()
        await until(pilot, lambda: tool.query(".tool-preview"))  # composed a moment after it mounts
        preview = tool.query_one(".tool-preview")
        await until(pilot, lambda: preview.display and "line 300" in str(preview.render()))
        assert str(preview.render()).splitlines() == ["line 298", "line 299", "line 300"]
        await pilot.press("ctrl+o")  # unfold everything: the preview would repeat the output
        await until(pilot, lambda: not preview.display)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: preview.display)


async def test_alt_o_opens_the_newest_output_which_pages_and_closes(fake_sessions, make_app) -> None:
    with_tools(fake_sessions)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(app.query(ToolCallView)) == 2)
        await pilot.press("alt+o")
        await until(pilot, lambda: isinstance(app.screen, OutputView))
        assert output_view(app).block.call_id == "c2"  # the newest
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, OutputView))
        assert app.query_one(PromptInput).has_focus


async def test_o_on_a_focused_block_shows_all_of_it_from_the_keyboard(fake_sessions, make_app) -> None:
    with_tools(fake_sessions)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(app.query(ToolCallView)) == 2)
        tool = app.query(ToolCallView).first()
        tool.focus()
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, OutputView))
        view = output_view(app)
        body = view.query_one(RichLog)
        await until(pilot, lambda: body.max_scroll_y > 250)  # all 300 lines, not a preview
        assert body.has_focus and body.scroll_y == 0
        assert "300 lines" in str(view.query_one("#output-head").render())
        await pilot.press("pagedown")
        await until(pilot, lambda: body.scroll_y > 10)
        paged = body.scroll_y
        await pilot.press("pagedown")
        await until(pilot, lambda: body.scroll_y > paged)
        await pilot.press("end")
        await until(pilot, lambda: body.scroll_y == body.max_scroll_y)
        await pilot.press("pageup")
        await until(pilot, lambda: body.scroll_y < body.max_scroll_y)
        await pilot.press("home")
        await until(pilot, lambda: body.scroll_y == 0)
        await pilot.press("down")
        await until(pilot, lambda: body.scroll_y == 1)
        await pilot.press("q")
        await until(pilot, lambda: not isinstance(app.screen, OutputView))


async def test_a_running_call_s_output_is_followed_live_until_its_result(fake_sessions, make_app) -> None:
    with_tools(fake_sessions, running=True)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(app.query(ToolCallView)) == 2)
        fake_sessions.publish(
            SID, ev.ToolCalled(assistant_message_id="msg_a", call_id="c3", name="bash", input={"command": "make"})
        )
        fake_sessions.delta(
            ev.ToolOutputDelta(session_id=SID, assistant_message_id="msg_a", call_id="c3", delta="compiling\n")
        )
        await until(pilot, lambda: len(app.query(ToolCallView)) == 3)
        await pilot.press("alt+o")
        await until(pilot, lambda: isinstance(app.screen, OutputView))
        view = output_view(app)
        head = view.query_one("#output-head")
        assert view.block.call_id == "c3" and "live" in str(head.render())
        assert view.text == "compiling\n"
        fake_sessions.delta(
            ev.ToolOutputDelta(session_id=SID, assistant_message_id="msg_a", call_id="c3", delta="linking\n")
        )
        await until(pilot, lambda: view.text == "compiling\nlinking\n")
        from agent_tui.vocab.tool_output import ToolOutput

        fake_sessions.publish(
            SID,
            ev.ToolSucceeded(
                assistant_message_id="msg_a", call_id="c3", output=ToolOutput(text="compiling\nlinking\nok\n")
            ),
        )
        await until(pilot, lambda: "live" not in str(head.render()) and "3 lines" in str(head.render()))
        assert view.text == "compiling\nlinking\nok\n"


async def test_p_without_a_terminal_to_hand_over_says_so(fake_sessions, make_app, monkeypatch) -> None:
    monkeypatch.setenv("PAGER", "cat")
    with_tools(fake_sessions)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query(ToolCallView)) == 2)
        await pilot.press("alt+o")
        await until(pilot, lambda: isinstance(app.screen, OutputView))
        await pilot.press("p")
        await until(pilot, lambda: any("no pager here" in n.message for n in app._notifications))
        assert isinstance(app.screen, OutputView)
