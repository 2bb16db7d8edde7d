"""The permission panel says what an answer saves: the "always" key names the patterns it stores,
the model's description of a command shows above it, an edit can be allowed for the rest of the
session (``e``: auto-edit), and the keys stay on screen whatever the size of the diff, which
scrolls inside the panel. A real store; the test plays the runner."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.api import events as ev
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.tool_block import ToolCallView
from agent_tui.vocab.kinds import ApprovalMode

from .test_app import until
from .test_app_store import real, running_session_app  # noqa: F401 - ``real`` is a fixture


def big_patch(lines: int) -> str:
    body = "\n".join(f"+line {n}" for n in range(lines))
    return f"*** Begin Patch\n*** Add File: src/big.py\n{body}\n*** End Patch"


async def ask(app, pilot, sessions, sid: str, action: str, *, save: list[str], **call) -> PermissionPanel:  # noqa: ANN001
    await until(pilot, lambda: app.view.synced)
    name, tool_input, detail, resources = call["tool"], call["input"], call.get("detail", {}), call["resources"]
    await sessions._store.publish_many(
        sid,
        [
            ev.ExecutionStarted(),
            ev.StepStarted(assistant_message_id="m1", agent="build", model="x"),
            ev.ToolCalled(assistant_message_id="m1", call_id="c1", name=name, input=tool_input),
            ev.PermissionAsked(
                request_id="perm_1",
                assistant_message_id="m1",
                call_id="c1",
                action=action,
                resources=resources,
                save=save,
                detail=detail,
            ),
        ],
    )
    panel = app.query_one(PermissionPanel)
    await until(pilot, lambda: panel.display and panel.has_focus)
    return panel


async def ask_edit(app, pilot, sessions, sid: str, patch: str) -> PermissionPanel:  # noqa: ANN001
    """``apply_patch`` asks to edit ``src/big.py``; "always" would save ``src/*``."""
    edit = {"tool": "apply_patch", "input": {"patch": patch}, "resources": ["src/big.py"], "detail": {"diff": patch}}
    return await ask(app, pilot, sessions, sid, "edit", save=["src/*"], **edit)


def shown(panel: PermissionPanel, part: str) -> str:
    return str(panel.query_one(f".permission-{part}").render())


async def test_the_always_key_names_what_it_saves_and_the_description_shows(real, workdir: Path, clock) -> None:  # noqa: F811
    sessions, sid, app = await running_session_app(real, workdir, clock)
    command = "git status --short && make test"
    async with app.run_test() as pilot:
        panel = await ask(
            app,
            pilot,
            sessions,
            sid,
            "bash",
            save=["git status *", "make test *"],
            tool="bash",
            input={"command": command},
            resources=[command],
            detail={"command": command, "description": "Show changed files and run the tests"},
        )
        keys = shown(panel, "keys")
        assert "a always allow commands matching `git status *`, `make test *` in this project" in keys
        assert " e " not in keys  # a command is not an edit: no session-wide edits offered
        assert shown(panel, "why") == "Show changed files and run the tests"
        clock.advance(1)
        await pilot.press("e")  # not offered: does nothing
        assert panel.display and (await sessions.permissions.pending(sid))[0].reply is None
        await pilot.press("a")
        await until(pilot, lambda: not panel.display)
    assert [(a.action, a.pattern) for a in await sessions.permissions.approvals(workdir)] == [
        ("bash", "git status *"),
        ("bash", "make test *"),
    ]


async def test_e_allows_this_edit_and_every_edit_here_for_the_session(real, workdir: Path, clock) -> None:  # noqa: F811
    sessions, sid, app = await running_session_app(real, workdir, clock)
    patch = big_patch(3)
    async with app.run_test() as pilot:
        panel = await ask_edit(app, pilot, sessions, sid, patch)
        keys = shown(panel, "keys")
        assert "a always allow edits to src/* in this project" in keys
        assert "e allow all edits in this project for this session" in keys
        diff = app.query_one(ToolCallView).query_one(".tool-diff")
        await until(pilot, lambda: not diff.display)  # shown once, in the panel
        clock.advance(1)
        await pilot.press("e")
        await until(pilot, lambda: not panel.display)
        await until(pilot, lambda: diff.display)  # answered: the block shows its diff again
        assert sessions.approval(sid) is ApprovalMode.AUTO_EDIT
        await until(pilot, lambda: " · auto-edit" in app.view.query_one("#status").line().plain)
    record = await sessions._store.permission("perm_1")
    assert record is not None and record.reply == "once"  # nothing saved for the project
    assert await sessions.permissions.approvals(workdir) == []


async def test_the_keys_stay_on_screen_and_a_long_diff_scrolls_inside(real, workdir: Path, clock) -> None:  # noqa: F811
    sessions, sid, app = await running_session_app(real, workdir, clock)
    patch = big_patch(300)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await ask_edit(app, pilot, sessions, sid, patch)
        keys = panel.query_one(".permission-keys")
        screen = app.screen.region
        await until(pilot, lambda: keys.region.height > 0 and screen.contains_region(keys.region))
        assert panel.region.contains_region(keys.region)
        scroll = panel.query_one(".permission-scroll")
        assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0
        clock.advance(1)
        await pilot.press("pagedown")
        await until(pilot, lambda: scroll.scroll_y > 0)
        assert panel.display and screen.contains_region(keys.region)
        await pilot.press("end")
        await until(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y)
        await pilot.press("y")
        await until(pilot, lambda: not panel.display)
