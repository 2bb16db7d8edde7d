"""Shared fixtures. Every test gets its own ``AGENT_TUI_HOME``."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests import leaks
from tests.warmth import LaunchMode, stop_warm_processes

if TYPE_CHECKING:
    from agent_tui.testing.postgres_server import PostgresServer

os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
RUN_MARK = leaks.mark_this_run()
LEAK_GRACE_S = 15.0  # a warm process hangs up on a child whose caller died, and kills it 10 s later
_LEAKED: dict[int, str] = {}


def pytest_configure(config: pytest.Config) -> None:
    """Signals the suite's launcher ignores are not the tests' to inherit. A shell without job
    control starts a background job (``pytest &`` from a script) with SIGINT and SIGQUIT ignored,
    ``nohup`` ignores SIGHUP, and every process a test starts would inherit that: ``run`` keeps an
    ignored signal ignored (as it should), so the tests of Ctrl+C would fail for the launcher's
    sake. The tests that need an ignored signal ignore it in their own child."""
    for signum in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM):
        if signal.getsignal(signum) is signal.SIG_IGN:
            handler = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
            signal.signal(signum, handler)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Whatever the run started and left running (its fixtures have stopped the warm processes)
    is killed here, and fails the run: a passing run leaves nothing behind either."""
    _LEAKED.update(leaks.sweep(RUN_MARK, LEAK_GRACE_S))
    if _LEAKED and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _LEAKED:
        terminalreporter.write_sep("!", f"{len(_LEAKED)} processes the tests left running (killed)", red=True)
        for pid, command in sorted(_LEAKED.items()):
            terminalreporter.write_line(f"{pid}: {command[:300]}")


@pytest.fixture(scope="session")
def runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The tests' own ``XDG_RUNTIME_DIR``: warm processes the tests start live here, never in the
    user's, and are stopped when the session ends."""
    path = tmp_path_factory.mktemp("runtime")
    path.chmod(0o700)
    yield path
    stop_warm_processes(path)


@pytest.fixture(autouse=True)
def agent_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, runtime_dir: Path) -> Path:
    home = tmp_path_factory.mktemp("agent-home")
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    for name in list(os.environ):
        if name.startswith("AGENT_TUI_") and name not in {"AGENT_TUI_HOME"}:
            monkeypatch.delenv(name)
    monkeypatch.setenv("LITELLM_OFFLINE_MODE", "true")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime_dir))
    monkeypatch.setenv("AGENT_TUI_NO_WARM", "1")  # a test that launches agent-tui asks for a mode: launch_mode
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")  # never the tester's keyring
    return home


@pytest.fixture(params=["in-process", "warm"])
async def launch_mode(request: pytest.FixtureRequest, runtime_dir: Path) -> AsyncIterator[LaunchMode]:
    """Run the test's ``agent-tui`` processes both ways: started in-process, and forked by a warm
    process (started before the test, so its first launch is warm too). A warm run checks that
    its launches really were served warm."""
    mode = LaunchMode(request.param, runtime_dir)
    await mode.prepare()
    yield mode
    await mode.verify()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A session location that is its own project root."""
    location = tmp_path / "project"
    location.mkdir()
    (location / ".git").mkdir()
    return location


@pytest.fixture
async def fake():  # type: ignore[no-untyped-def]
    """The project's fake provider over real HTTP (OpenAI and Anthropic wires)."""
    from agent_tui.testing.fake_provider import FakeProvider

    async with FakeProvider() as provider:
        yield provider


@pytest.fixture
def routes():  # type: ignore[no-untyped-def]
    """Per-session scripts for ``routed_fake`` (``tests/routed_fake.py``): parents and subagents."""
    from tests.routed_fake import Routes

    return Routes()


@pytest.fixture
async def routed_fake(routes):  # type: ignore[no-untyped-def]
    """The fake provider answering each session from ``routes``; a module uses it as its ``fake``."""
    from agent_tui.testing.fake_provider import FakeProvider

    async with FakeProvider(responder=routes) as provider:
        yield provider


@pytest.fixture
def open_runtime(fake):  # type: ignore[no-untyped-def]
    """``await open_runtime(...)`` -> a Runtime against the fake provider (use it with ``async with``).

    ``tools``: "test" (only the test tools), "all" (built-ins + test tools) or a
    registry factory; ``cli`` adds settings layers over the fake's model and key.
    """
    from agent_tui.core.api import Runtime, load_settings
    from agent_tui.core.host.tool_host import build_registry
    from agent_tui.testing.test_tools import register as register_test_tools
    from agent_tui.tools.registry import ToolRegistry

    def registry_for(kind):  # type: ignore[no-untyped-def]
        def make(location: Path) -> ToolRegistry:
            tools = ToolRegistry(location) if kind == "test" else build_registry(location)
            register_test_tools(tools)
            return tools

        return make if isinstance(kind, str) else kind

    async def opener(*, cli=None, policy=None, tools="test", clock=None):  # type: ignore[no-untyped-def]
        layer = {"model": "openai/fake-model", "api_base": fake.openai_base, "api_key": "test-key", **(cli or {})}
        return await Runtime.open(
            lambda location: load_settings(location, cli=layer),
            permission_policy=policy,
            clock=clock,
            registry_factory=registry_for(tools),
        )

    return opener


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL server for the run (``agent_tui/testing/postgres_server.py``): started by
    the first test that asks, stopped at the end. Missing server binaries fail the test: CI
    installs them (``.ci/run``), and a skip would hide the backend going untested."""
    from agent_tui.testing import postgres_server

    with postgres_server.running() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> str:
    """A fresh, empty database on the run's server, for this test alone."""
    import secrets

    import psycopg

    name = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    return pg_server.url(name)
