"""A running subagent's permission ask shows in its parent's screen, naming the child, and the
answer reaches the child's log (a real store; the test plays the runner)."""

from __future__ import annotations

from agent_tui.core.api import events as ev
from agent_tui.tui.app import StartMode
from agent_tui.tui.child_asks import descendants
from agent_tui.tui.widgets.block_widgets import UserMessage
from agent_tui.tui.widgets.permission import PermissionPanel

from .test_app import until
from .test_app_store import app_for, real, session_with  # noqa: F401 - ``real`` is a fixture


def test_descendants_follow_the_parent_chain() -> None:
    active = {
        "p": {"type": "running"},
        "c": {"type": "running", "parent": "p"},
        "g": {"type": "running", "parent": "c"},
        "x": {"type": "running", "parent": "other"},
    }
    assert descendants(active, "p") == ["c", "g"]
    assert descendants(active, "c") == ["g"]
    assert descendants(active, None) == []


async def test_a_childs_ask_is_answered_from_the_parents_screen(real, workdir, clock) -> None:  # noqa: F811
    sessions, executor = real
    parent = await session_with(sessions, workdir, "delegate", "on it")
    link = ev.SpawnedBy(session_id=parent, assistant_message_id="msg_p", call_id="call_t")
    child = "ses_child"
    await sessions._store.publish_many(
        child,
        [
            ev.SessionCreated(location=str(workdir), project_root=str(workdir), title="run the build", spawned_by=link),
            ev.StepStarted(assistant_message_id="msg_c", agent="build", model="x"),
            ev.ToolCalled(assistant_message_id="msg_c", call_id="c1", name="bash", input={"command": "make"}),
            ev.PermissionAsked(
                request_id="perm_child", assistant_message_id="msg_c", call_id="c1", action="bash", resources=["make"]
            ),
        ],
    )
    executor.running.update({parent, child})
    executor.parents[child] = parent
    app = app_for(sessions, workdir, clock, StartMode(session_id=parent))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query(UserMessage)) == 1)
        await app.view.feed.poll()  # the periodic check, without waiting for its timer
        panel = app.view.query_one(PermissionPanel)
        await until(pilot, lambda: panel.display)
        title = str(panel.query_one(".permission-title").render())
        assert title == "⚑ The build subagent (run the build) wants to run a command"
        assert "waiting elsewhere" not in app.view.query_one("#status").line().plain  # shown here, not counted
        clock.advance(10)  # past the grace period
        await pilot.press("y")
        await until(pilot, lambda: not panel.display)
    assert await sessions._store.pending_permissions(child) == []
    replied = [
        e.event for e in await sessions._store.events(child, limit=None) if isinstance(e.event, ev.PermissionReplied)
    ]
    assert [(r.request_id, r.reply.value) for r in replied] == [("perm_child", "once")]
