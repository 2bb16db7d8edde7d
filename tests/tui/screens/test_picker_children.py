"""The picker lists subagents' sessions under the session whose ``task`` call started them."""

from __future__ import annotations

from agent_tui.core.api import events as ev
from agent_tui.tui.app import StartMode
from agent_tui.tui.screens.picker import SessionPicker
from tests.fakes.logs import LogBuilder
from tests.fakes.sessions import FakeSessions
from tests.tui.conftest import LOCATION
from tests.tui.test_app import until


def _child(session_id: str, parent: str, call_id: str, at_ms: int) -> LogBuilder:
    log = LogBuilder(session_id=session_id)
    link = ev.SpawnedBy(session_id=parent, assistant_message_id="msg_a", call_id=call_id)
    log.add(ev.SessionCreated(location=LOCATION, project_root=LOCATION, title=call_id, spawned_by=link))
    log.now_ms += at_ms
    return log


async def test_children_sit_under_their_parent_never_at_the_top(fake_sessions: FakeSessions, make_app) -> None:  # type: ignore[no-untyped-def]
    older = LogBuilder(session_id="ses_old").created(location=LOCATION)
    older.turn("older work", "ok")
    parent = LogBuilder(session_id="ses_parent").created(location=LOCATION)
    parent.now_ms += 1_000
    parent.turn("delegate it", "done")
    for log in (older, parent, _child("ses_kid1", "ses_parent", "look around", 5_000)):
        fake_sessions.add_log(log)
    fake_sessions.add_log(_child("ses_kid2", "ses_parent", "check tests", 6_000))  # newest of all
    app = make_app(StartMode(picker=True))
    async with app.run_test() as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == 4)
        picker = app.screen
        assert [row.id for row in picker.rows] == ["ses_parent", "ses_kid1", "ses_kid2", "ses_old"]
        labels = [str(picker.query_one("#picker-list").get_option_at_index(i).prompt) for i in range(4)]
        assert labels[1].startswith("  ↳ build · look around"), labels
        assert "↳" not in labels[0] and "↳" not in labels[3]
