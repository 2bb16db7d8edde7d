"""``/permissions`` in the TUI: the project's saved approvals in words, the session's mode, and ``d``
revoking the highlighted one (through the facade, so the store's revocation is what it asks for)."""

from __future__ import annotations

from textual.widgets import OptionList

from agent_tui.core.api import ApprovalRecord
from agent_tui.tui.screens.permissions import PermissionsScreen
from agent_tui.tui.widgets.prompt import PromptInput
from tests.fakes.sessions import FakeSessions

from .conftest import LOCATION
from .test_app import opened, until


def saved(action: str, pattern: str, project: str = LOCATION) -> ApprovalRecord:
    return ApprovalRecord(project_root=project, action=action, pattern=pattern, created=1_700_000_000_000)


async def test_slash_permissions_lists_and_revokes(fake_sessions: FakeSessions, make_app) -> None:
    fake_sessions.saved = [saved("bash", "git status *"), saved("edit", "src/*"), saved("bash", "ls *", "/elsewhere")]
    async with opened(fake_sessions, make_app) as (app, pilot):
        app.query_one(PromptInput).focus()
        await pilot.press(*"/permissions", "enter")
        await until(pilot, lambda: isinstance(app.screen, PermissionsScreen))
        screen = app.screen
        listing = screen.query_one(OptionList)
        rows = [str(listing.get_option_at_index(n).prompt) for n in range(listing.option_count)]
        assert len(rows) == 2  # another project's approvals are not this one's
        assert "commands matching `git status *`" in rows[0] and "edits to src/*" in rows[1]
        assert "This session: ask" in str(screen.query_one("#permissions-mode").render())
        await pilot.press("down", "d")
        await until(pilot, lambda: listing.option_count == 1)
        assert ("revoke_approvals", LOCATION, "edit", "src/*") in fake_sessions.calls
        await pilot.press("d")
        await until(pilot, lambda: not listing.display and screen.query_one("#permissions-empty").display)
        assert [a.pattern for a in fake_sessions.saved] == ["ls *"]
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, PermissionsScreen))
