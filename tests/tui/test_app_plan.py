"""Pilot tests of the live plan above the prompt: the real app over the stored-log facade, and over the real store."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.api import Sessions
from agent_tui.core.api import events as ev
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.widgets.plan import PlanPanel
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.tool_output import ToolOutput
from tests.fakes.logs import LogBuilder
from tests.fakes.sessions import FakeSessions

from .conftest import LOCATION
from .test_app import SID, blocks, opened, until
from .test_app_store import app_for, busy_period, real  # noqa: F401 - the fixture

OPEN = [
    {"content": "read the parser", "status": "done"},
    {"content": "fix the bug", "status": "in_progress"},
    {"content": "run the tests", "status": "pending"},
]
DONE = [{**item, "status": "done"} for item in OPEN]


def plan_call(
    fake_sessions: FakeSessions, amid: str, call_id: str, items: list[dict[str, str]], fails: bool = False
) -> None:
    fake_sessions.publish(
        SID, ev.ToolCalled(assistant_message_id=amid, call_id=call_id, name="todo", input={"items": items})
    )
    if fails:
        error = ErrorInfo(type="tool.input", message="At most one item may be in_progress")
        fake_sessions.publish(SID, ev.ToolFailed(assistant_message_id=amid, call_id=call_id, error=error))
    else:
        output = ToolOutput(text="Plan updated", data={"plan": items})
        fake_sessions.publish(SID, ev.ToolSucceeded(assistant_message_id=amid, call_id=call_id, output=output))


def panel(app: AgentApp) -> PlanPanel:
    return app.query_one(PlanPanel)


async def test_the_plan_appears_as_the_call_lands_and_goes_when_all_is_done(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        assert not panel(app).display, "no plan yet: nothing pinned"
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        plan_call(fake_sessions, "m2", "c1", OPEN)
        await until(pilot, lambda: panel(app).display)
        assert panel(app).lines() == [
            "Plan 1/3 done (alt+t folds)",
            "✓ read the parser",
            "▸ fix the bug",
            "○ run the tests",
        ]
        plan_call(fake_sessions, "m2", "c2", [{**item, "status": "in_progress"} for item in OPEN], fails=True)
        await until(pilot, lambda: len(app.query("ToolCallView")) == 2)
        assert panel(app).lines()[0] == "Plan 1/3 done (alt+t folds)", "a failed call leaves the plan"
        plan_call(fake_sessions, "m2", "c3", DONE)
        await until(pilot, lambda: not panel(app).display)


async def test_alt_t_and_a_click_fold_and_unfold_it(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        plan_call(fake_sessions, "m2", "c1", OPEN)
        await until(pilot, lambda: panel(app).display)
        await pilot.press("alt+t")
        await until(pilot, lambda: panel(app).lines() == ["Plan 1/3 done · fix the bug (alt+t unfolds)"])
        plan_call(
            fake_sessions, "m2", "c2", [OPEN[0], {**OPEN[1], "status": "done"}, {**OPEN[2], "status": "in_progress"}]
        )
        await until(pilot, lambda: panel(app).lines() == ["Plan 2/3 done · run the tests (alt+t unfolds)"])
        await pilot.click(PlanPanel)
        await until(pilot, lambda: len(panel(app).lines()) == 4)


async def test_an_opened_session_shows_the_plan_it_has(fake_sessions, make_app) -> None:
    log = LogBuilder(session_id=SID).created(location=LOCATION)
    log.prompt("plan it")
    log.step("m1")
    log.add(ev.ToolCalled(assistant_message_id="m1", call_id="c1", name="todo", input={"items": OPEN}))
    log.add(ev.ToolSucceeded(assistant_message_id="m1", call_id="c1", output=ToolOutput(text="", data={"plan": OPEN})))
    log.end_step("m1")
    fake_sessions.add_log(log)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(blocks(app)) == 2)
        await until(pilot, lambda: panel(app).display)
        assert panel(app).lines()[2] == "▸ fix the bug"


async def planned_turn(sessions: Sessions, sid: str, prompt: str, items: list[dict[str, str]]) -> str:
    """A busy period whose step writes ``items`` with the todo tool; returns the prompt's id."""
    output = ToolOutput(text="", data={"plan": items})
    return await busy_period(
        sessions,
        sid,
        prompt,
        lambda amid: [
            ev.ToolCalled(assistant_message_id=amid, call_id=f"c_{prompt}", name="todo", input={"items": items}),
            ev.ToolSucceeded(assistant_message_id=amid, call_id=f"c_{prompt}", output=output),
        ],
    )


async def test_over_the_real_store_a_rewind_brings_back_the_plan_before_it(real, workdir: Path, clock) -> None:  # noqa: ANN001, F811
    sessions, _ = real
    sid = (await sessions.create(location=workdir)).id
    await planned_turn(sessions, sid, "plan", OPEN)
    second = await planned_turn(sessions, sid, "finish", DONE)
    app = app_for(sessions, workdir, clock, StartMode(session_id=sid))
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.view.synced and len(blocks(app)) == 4)
        assert not panel(app).display, "every item done: nothing pinned"
        await sessions.rewind(sid, second, "conversation")
        await until(pilot, lambda: panel(app).display)
        assert panel(app).lines()[2] == "▸ fix the bug"


HOSTILE = [
    {"content": "red \x1b[31mtext\x1b[0m here", "status": "done"},
    {"content": "a \x1b]8;;http://x\x07link\x1b]8;;\x07 there", "status": "in_progress"},
    {"content": "[bold]x[/bold] and [link=http://x]y[/link]", "status": "pending"},
    {"content": "over\rwritten", "status": "pending"},
    {"content": "open invoice\u202egnp.exe", "status": "pending"},
]


async def test_control_sequences_and_markup_in_plan_items_are_shown_inert(fake_sessions, make_app) -> None:
    """The model writes the items: no escape or bidi override reaches the terminal, no markup is read as markup."""
    from .test_control_sequences import written

    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        plan_call(fake_sessions, "m2", "c1", HOSTILE)
        await until(pilot, lambda: panel(app).display)
        await pilot.pause()
        rows = [
            "Plan 1/5 done (alt+t folds)",
            "✓ red text here",
            "▸ a link there",
            "○ [bold]x[/bold] and [link=http://x]y[/link]",
            "○ overwritten",
            "○ open invoicegnp.exe",
        ]
        assert panel(app).lines() == rows
        shown = panel(app).render()
        assert shown.plain == "\n".join(rows), repr(shown)  # type: ignore[union-attr]
        starts = [sum(len(row) + 1 for row in rows[:n]) for n in range(len(rows))]
        whole_rows = [(starts[n], starts[n] + len(rows[n])) for n in range(3)]  # the head bold, done dim, doing bold
        assert [(span.start, span.end) for span in shown.spans] == whole_rows, "no style but the rows' own"  # type: ignore[union-attr]
        screen = written(app)
        assert "[bold]x[/bold] and [link=http://x]y[/link]" in screen, "markup shown as typed"
        assert "\x1b]8;" not in screen and "\x07" not in screen and "\r" not in screen, repr(screen)
        assert "\u202e" not in screen and "open invoicegnp.exe" in screen, "no bidi override reorders the row"
        assert "http://x\x1b" not in screen and "\x1b[31m" not in screen
