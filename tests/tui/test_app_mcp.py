"""MCP servers in the TUI, with a real runtime, the fake provider and the fake MCP server as a process."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.api import Runtime, Settings, load_settings
from agent_tui.testing.fake_provider import FakeProvider, ScriptToolCall, Turn
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.screens.mcp import McpScreen
from agent_tui.tui.services import TuiServices
from agent_tui.tui.transcript_blocks import ToolState
from agent_tui.tui.widgets.tool_block import ToolCallView

from .conftest import FAST
from .test_app import until
from .test_app_provider import MODEL, approve_the_ask

SERVER = Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py"


@pytest.fixture
async def provider() -> AsyncIterator[FakeProvider]:
    async with FakeProvider() as fake:
        yield fake


@pytest.fixture
async def runtime(provider: FakeProvider, workdir: Path, tmp_path: Path) -> AsyncIterator[Runtime]:
    notes = {
        "command": [sys.executable, str(SERVER), "stdio"],
        "env": {"FAKE_MCP_MARKS": str(tmp_path)},
        "startup_timeout_s": 60,
    }
    cli = {
        "model": MODEL,
        "api_base": provider.openai_base,
        "api_key": "test-key",
        "mcp": {"servers": {"notes": notes}},
    }

    def loader(location: Path) -> Settings:
        return load_settings(location, cli=cli)

    async with await Runtime.open(loader, permission_policy=None) as opened:
        await opened.warm_mcp(workdir)  # as the TUI's bootstrap does after its first frame
        yield opened


@pytest.fixture
def app(runtime: Runtime, workdir: Path, clock) -> AgentApp:
    services = TuiServices(
        sessions=runtime.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST, mcp=runtime
    )
    return AgentApp(services, start=StartMode(), watch_themes=False)


def _status(app: AgentApp) -> str:
    return app.view.query_one("#status").line().plain


async def test_the_status_bar_counts_ready_servers_and_slash_mcp_lists_them(app: AgentApp) -> None:
    async with app.run_test() as pilot:
        await until(pilot, lambda: "mcp 1" in _status(app), timeout=60)
        await pilot.press(*"/mcp", "enter")
        await until(pilot, lambda: isinstance(app.screen, McpScreen))
        assert app.screen.rows == [("notes", "stdio · ready with 5 tools", "echo, pid, fail, die, wait")]
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, McpScreen))


async def test_a_call_asks_in_the_panel_with_server_tool_and_arguments(provider, app, clock) -> None:
    provider.add(
        Turn(tool_calls=[ScriptToolCall(id="call_1", name="mcp__notes__echo", arguments={"text": "from the tui"})]),
        Turn(text="Echoed."),
    )
    async with app.run_test() as pilot:
        title, body = await approve_the_ask(pilot, app, clock, "echo it", timeout=60)
        assert "call echo on MCP server notes" in title and '"text": "from the tui"' in body
        tool = app.query_one(ToolCallView)
        assert tool.block.shown_state is ToolState.OK and "echo: from the tui" in tool.block.output
        assert str(tool.query_one(".tool-header").render()).split()[1] == "notes/echo"


async def test_a_server_that_fails_to_start_shows_one_notice_with_its_stderr(
    provider: FakeProvider, workdir: Path, tmp_path: Path, clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workdir)  # Runtime.open starts the servers of where it runs
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nprint('missing API token', file=sys.stderr)\nsys.exit(2)\n")
    cli = {
        "model": MODEL,
        "api_base": provider.openai_base,
        "api_key": "test-key",
        "mcp": {"servers": {"tracker": {"command": [sys.executable, str(broken)]}}},
    }
    async with await Runtime.open(lambda location: load_settings(location, cli=cli)) as runtime:
        services = TuiServices(
            sessions=runtime.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST, mcp=runtime
        )
        app = AgentApp(services, start=StartMode(), watch_themes=False)
        async with app.run_test() as pilot:
            await until(pilot, lambda: any("tracker" in n.message for n in app._notifications), timeout=60)
            (notice,) = [n for n in app._notifications if "tracker" in n.message]
            assert "failed to start" in notice.message and "missing API token" in notice.message
            assert "mcp 0/1" in _status(app)


async def test_notices_wait_while_the_permission_panel_is_open_and_show_when_it_closes(provider, app, clock) -> None:
    from textual.widgets._toast import Toast

    from agent_tui.tools.mcp.hub import McpStatus
    from agent_tui.tui.widgets.permission import PermissionPanel
    from agent_tui.vocab.kinds import McpState

    provider.add(
        Turn(tool_calls=[ScriptToolCall(id="call_1", name="mcp__notes__echo", arguments={"text": "hold"})]),
        Turn(text="Echoed."),
    )
    dead = McpStatus("tracker", str(app.services.location), "stdio", McpState.FAILED, (), "did not start within 1 s", 1)
    async with app.run_test(notifications=True) as pilot:
        app.notify("on screen before the ask", timeout=60)
        await until(pilot, lambda: len(app.screen.query(Toast)) == 1)
        await pilot.press(*"echo it", "enter")
        panel = app.query_one(PermissionPanel)
        await until(pilot, lambda: panel.display, timeout=60)
        app.mcp_interactions.server_changed(dead)  # a server fails while the user reads the ask
        await pilot.pause()
        assert len(app.screen.query(Toast)) == 0 and not list(app._notifications)
        clock.advance(1)
        await pilot.press("y")
        await until(pilot, lambda: not panel.display)
        await until(pilot, lambda: len(app.screen.query(Toast)) == 2)
        shown = [n.message for n in app._notifications]
        assert shown == ["on screen before the ask", "MCP server tracker did not start within 1 s"]


async def test_a_server_that_dies_while_idle_shows_failed_at_once_with_one_notice(
    app: AgentApp, runtime: Runtime, workdir: Path
) -> None:
    import os
    import signal

    async with app.run_test(notifications=True) as pilot:
        await until(pilot, lambda: "mcp 1" in _status(app), timeout=60)
        (connection,) = runtime._mcp.hub.connections(workdir)  # noqa: SLF001 - the test needs the server's pid
        pid = int((await connection.call("pid", {})).content[0].text)
        os.kill(pid, signal.SIGKILL)
        await until(pilot, lambda: any("MCP server notes" in n.message for n in app._notifications), timeout=30)
        await until(pilot, lambda: "mcp 1" in _status(app) and "mcp 1/" not in _status(app), timeout=60)
        (notice,) = [n.message for n in app._notifications if "MCP server notes" in n.message]
        assert notice.startswith("MCP server notes exited")


async def test_a_logged_error_is_one_notice_and_slash_mcp_shows_the_recent_log(app: AgentApp) -> None:
    from agent_tui.tools.mcp.hub import McpStatus
    from agent_tui.tools.mcp.server_log import ServerLog
    from agent_tui.vocab.kinds import McpState

    log = ServerLog("tracker")
    log.record("info", "synced 3 issues")
    log.record("error", "token expired")
    here = str(app.services.location)
    status = McpStatus("tracker", here, "stdio", McpState.READY, ("find",), None, logs=log.entries)
    async with app.run_test(notifications=True) as pilot:
        app.mcp_interactions.server_changed(status)
        app.mcp_interactions.server_changed(status)  # a later change of the same server: no second notice
        await pilot.pause()
        assert [n.message for n in app._notifications if "tracker" in n.message] == [
            "MCP server tracker logged error: token expired"
        ]
        app.services.mcp.mcp_status = lambda: [status]  # type: ignore[union-attr, method-assign]
        await pilot.press(*"/mcp", "enter")
        await until(pilot, lambda: isinstance(app.screen, McpScreen))
        ((name, lines),) = app.screen.logs
        assert (
            name == "tracker" and lines[0].endswith("info synced 3 issues") and lines[1].endswith("error token expired")
        )
