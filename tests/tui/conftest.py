"""Pilot fixtures: the app over FakeSessions with a manual clock and zero delays; and, for the MCP
tests, the app over a real runtime with one MCP server process (``runtime``: the module names the
server with an ``mcp_server`` fixture); for the imports, the other agents' HOME and the picker's
"import from…"."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.services import TuiServices
from agent_tui.tui.timings import Timings
from agent_tui.vocab.clock import ManualClock
from tests import waiting
from tests.fakes.sessions import FakeSessions

if TYPE_CHECKING:
    from agent_tui.core.api import Runtime
    from agent_tui.testing.fake_provider import FakeProvider, ScriptToolCall, Turn
    from agent_tui.tui.transcript_blocks import ToolBlock

LOCATION = "/tmp/project"
FAST = Timings(permission_grace_s=0.5, quit_window_s=2.0, search_debounce_s=0.0, flush_interval_s=0.0)
MODEL = "openai/fake-model"
"""The model the tests over the real runtime and the fake provider use."""
_Shown = TypeVar("_Shown", bound=Screen[Any])


async def until(pilot: Pilot[Any], condition: Callable[[], object], timeout: float = 5.0) -> None:
    """Wait for an observable condition (never for a fixed time), giving the app its turns."""
    await waiting.until(condition, timeout=timeout, pause=pilot.pause)


async def steady_screen(pilot: Pilot, focused: type[Widget]) -> None:
    """Before a snapshot: wait until a ``focused`` widget has the focus, then stop the text cursors
    blinking (a focused one stays drawn). The blink toggles every 0.5 s from focus; a loaded machine
    takes longer than that to reach the screenshot, which then caught the cursor in either phase."""
    while not isinstance(pilot.app.focused, focused):
        await pilot.pause(0.01)
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause()


@pytest.fixture
def fake_sessions() -> FakeSessions:
    return FakeSessions()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def make_app(fake_sessions: FakeSessions, clock: ManualClock):
    def make(
        start: StartMode = StartMode(), theme: str = "agent-dark", theme_dirs: list[Path] | None = None, **services_args
    ) -> AgentApp:
        services = TuiServices(
            sessions=fake_sessions, location=LOCATION, model="openai/fake", clock=clock, timings=FAST, **services_args
        )
        return AgentApp(services, start=start, theme=theme, theme_dirs_=theme_dirs, watch_themes=theme_dirs is not None)

    return make


# -- the app over a real runtime with one MCP server -------------------------------------


@pytest.fixture
async def provider() -> AsyncIterator[FakeProvider]:
    from agent_tui.testing.fake_provider import FakeProvider

    async with FakeProvider() as fake:
        yield fake


@pytest.fixture(params=[False, True], ids=["2026", "2025-handshake"])
def legacy(request: pytest.FixtureRequest) -> bool:
    """The MCP server speaks the 2026 protocol, or answers a 2025-era handshake."""
    return bool(request.param)


@pytest.fixture
async def runtime(
    provider: FakeProvider, workdir: Path, mcp_server: tuple[str, dict[str, Any]]
) -> AsyncIterator[Runtime]:
    """A real runtime on the fake provider with the module's one MCP server (``mcp_server``: its name
    and config), its calls allowed, started as the TUI's bootstrap starts it."""
    from agent_tui.core.api import Runtime, Settings, load_settings

    name, server = mcp_server
    cli = {
        "model": MODEL,
        "api_base": provider.openai_base,
        "api_key": "test-key",
        "mcp": {"servers": {name: server}},
        "permission": [{"action": "mcp", "pattern": "*", "effect": "allow"}],
    }

    def loader(location: Path) -> Settings:
        return load_settings(location, cli=cli)

    async with await Runtime.open(loader, permission_policy=None) as opened:
        await opened.warm_mcp(workdir)
        yield opened


@pytest.fixture
def app(runtime: Runtime, workdir: Path, clock: ManualClock) -> AgentApp:
    services = TuiServices(
        sessions=runtime.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST, mcp=runtime
    )
    return AgentApp(services, start=StartMode(), watch_themes=False)


async def asked_in(
    pilot: Pilot[Any], app: AgentApp, provider: FakeProvider, call: ScriptToolCall, shown: type[_Shown], *then: Turn
) -> _Shown:
    """The model makes ``call`` (then ``then``) once the server lists its tools; its request to the user
    is ``shown`` (a screen), focused."""
    from agent_tui.testing.fake_provider import Turn

    provider.add(Turn(tool_calls=[call]), *then)
    await until(pilot, lambda: any(s.tools for s in app.services.mcp.mcp_status()), timeout=60)
    await pilot.press(*"go ahead", "enter")
    await until(pilot, lambda: isinstance(app.screen, shown) and app.screen.focused is not None, timeout=60)
    assert isinstance(app.screen, shown)
    return app.screen


def tool_result(provider: FakeProvider, index: int) -> str:
    """The tool result the model's ``index``-th request carries."""
    return str(next(m for m in provider.accepted[index].body["messages"] if m["role"] == "tool")["content"])


async def logged(runtime: Runtime, app: AgentApp, prefix: str) -> list[tuple[str, dict[str, Any]]]:
    """The shown session's events whose type starts with ``prefix``: (type, event as JSON)."""
    from agent_tui.core.api import Synced

    out = []
    async for item in runtime.sessions.log(app.view.session_id):
        if not isinstance(item, Synced) and item.type.startswith(prefix):
            out.append((item.type, item.event.model_dump(mode="json")))
    return out


@pytest.fixture
def foreign_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME, where the other agents' sessions are looked for (``tests.fakes.foreign_homes`` places them),
    and none of their own places set."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("OPENCODE_DB", raising=False)
    return home


async def open_import_from(app: AgentApp, pilot: Pilot[Any]) -> None:
    """The picker, then its "import from…" (Ctrl+G), listed."""
    from agent_tui.tui.screens.import_from import ImportScreen
    from agent_tui.tui.screens.picker import SessionPicker

    await pilot.press("ctrl+r")
    await until(pilot, lambda: isinstance(app.screen, SessionPicker) and app.screen.loaded_generation > 0)
    await pilot.press("ctrl+g")
    await until(pilot, lambda: isinstance(app.screen, ImportScreen) and app.screen.loaded)


async def import_highlighted(app: AgentApp, pilot: Pilot[Any]) -> dict[str, ToolBlock]:
    """Enter on "import from…": the highlighted session imported and opened, its transcript drawn (both
    prompts of the fixtures); its tool calls by call id."""
    from agent_tui.tui.widgets.block_widgets import UserMessage
    from agent_tui.tui.widgets.tool_block import ToolCallView

    await pilot.press("enter")
    await until(pilot, lambda: app.view.session_id is not None and not isinstance(app.screen, ModalScreen))
    await until(pilot, lambda: len(app.query(UserMessage)) == 2)
    return {view.block.call_id: view.block for view in app.query(ToolCallView)}
