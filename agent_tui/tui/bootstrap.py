"""How the TUI starts: paint first, then open the core one cheap step at a time.

The path to the first frame imports Textual and reads the config as plain data,
never pydantic, the store or LiteLLM; everything else is staged after it
(:class:`CoreOpener`). The tricks that keep it fast live here together, because
each one only works in its place in the order:

- garbage collection is off until the first frame (start-up makes long-lived
  objects only; ``gc_policy.tune_runtime`` freezes them and turns it on);
- ``--resume`` starts reading the picker's first rows in a thread before
  Textual is imported (:class:`EarlyPeek`);
- ``LITELLM_OFFLINE_MODE`` defaults to true (LiteLLM would fetch its cost map);
- each core import runs in a thread, so frames keep painting;
- LiteLLM is warmed with collection paused, and what it made is then frozen.

A missing model or key does not stop the app; it says in one line what to set.
The TUI reaches core only through ``agent_tui.core.api``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.api import peek_sessions
from agent_tui.tui.model_facts import ModelFacts, setup_hint
from agent_tui.tui.quit_hint import read_quit_hint

if TYPE_CHECKING:
    from agent_tui.tui.app import AgentApp
    from agent_tui.tui.services import TuiServices

__all__ = [
    "CoreOpener",
    "EarlyPeek",
    "Launch",
    "LaunchFailed",
    "ModelFacts",
    "peek_sessions",
    "rehearse",
    "run",
    "setup_hint",
]


@dataclass(frozen=True)
class Launch:
    """What the command line asked for."""

    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    continue_latest: bool = False
    resume: str | None = None  # "" opens the picker, an id that session, None a new session
    trust: bool | None = None  # --trust / --no-trust: this launch only; None asks (core.trust)
    agent: str | None = None  # --agent: checked once the settings are validated (exit 2 when unknown)
    approval: str | None = None  # --approval / --full-auto: the approval mode new sessions start in
    prompt: str | None = None  # ``agent-tui "PROMPT"``: sent as soon as the session is open

    @property
    def cli(self) -> dict[str, str | None]:
        """The command line's settings layer."""
        return {
            "model": self.model,
            "api_base": self.api_base,
            "api_key": self.api_key,
            "agent": self.agent,
            "approval": self.approval,
        }


class LaunchFailed(Exception):
    """The app cannot start or ended on an error (a broken or invalid config): one line, exit 1
    (2 for an agent that cannot be selected)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class EarlyPeek:
    """``--resume``: the picker's first rows, read in a thread while Textual imports.

    Called like :func:`peek_sessions`; the first call for this location gets the
    rows read early (waiting for them if need be), later calls read again."""

    ROWS = 64  # at least the picker's first page (50) plus one

    def __init__(self, location: str) -> None:
        import concurrent.futures
        import threading

        self.location = location
        self._rows: concurrent.futures.Future[list] | None = concurrent.futures.Future()
        threading.Thread(target=self._read, name="early-peek", daemon=True).start()

    def _read(self) -> None:
        assert self._rows is not None
        try:
            self._rows.set_result(peek_sessions(self.location, self.ROWS))
        except BaseException as error:  # noqa: BLE001 - handed to the caller, as a direct peek would raise it
            self._rows.set_exception(error)

    def __call__(self, location: str | None, limit: int) -> list:
        early, self._rows = self._rows, None
        if early is not None and location == self.location and limit <= self.ROWS:
            return early.result()[:limit]
        return peek_sessions(location, limit)


def run(launch: Launch) -> int:
    """Run the app to its end; returns the exit code, raises :class:`LaunchFailed` with the reason."""
    gc.disable()  # start-up makes long-lived objects only; the app turns collection on after its first frame
    location = Path.cwd().resolve()
    peek = EarlyPeek(str(location)) if launch.resume == "" else peek_sessions
    from agent_tui.core.api import ConfigError, read_layers, trust

    trust.assume(launch.trust)
    try:  # read now (a broken file stops us here); validated by CoreOpener.connect after the first frame
        layers = read_layers(location, cli=launch.cli)
    except ConfigError as error:
        raise LaunchFailed(str(error)) from None
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    storage = layers.merged().get("storage")
    on_server = isinstance(storage, dict) and bool(storage.get("url"))  # the peek reads the SQLite file only
    try:
        return asyncio.run(_run(launch, layers, location, None if on_server else peek))
    except KeyboardInterrupt:
        return 130


async def _run(launch: Launch, layers: Any, location: Path, peek: Callable[[str | None, int], list] | None) -> int:
    from agent_tui.core.api import DEFAULT_AGENT
    from agent_tui.tui.app import DEFAULT_THEME, AgentApp, StartMode
    from agent_tui.tui.services import TuiServices

    facts = ModelFacts()
    model = layers.text("model")
    services = TuiServices(
        sessions=None,
        location=str(location),
        model=model,
        agent=layers.text("agent") or DEFAULT_AGENT,
        approval=layers.text("approval") or "ask",  # what an untrusted project asked for is not in the layers
        context_window=facts.window,
        setup_hint=setup_hint(model, layers.text("api_base"), layers.text("api_key")),
        learn_model=facts.learn,
        peek_sessions=peek,
    )
    start = StartMode(
        continue_latest=launch.continue_latest,
        picker=launch.resume == "",
        session_id=launch.resume or None,
        prompt=launch.prompt,
    )
    core = CoreOpener(launch, layers, services, facts)
    app = AgentApp(services, start=start, theme=layers.text("theme") or DEFAULT_THEME, connect=core.connect)
    stop_on_signals(app)
    hint = None
    try:
        with _suspend_handlers_restored():
            await app.run_async()
        if app.startup_error is None and app.stopped_by is None:  # a signal's terminal may be gone
            hint = await read_quit_hint(core.sessions, app.session_on_exit)  # while the store is open
    finally:
        await core.close()
    if app.startup_error is not None:
        raise LaunchFailed(app.startup_error, app.return_code or 1)
    if app.stopped_by is not None:
        return 128 + app.stopped_by
    if hint is not None:  # Textual has given the terminal back
        print(hint, flush=True)
    return app.return_code or 0


def rehearse(theme: str | None = None) -> None:
    """Run the app once, headless, to its first frame and out: Textual fills its per-class caches
    and the CSS is parsed (``shared_css``) for every launch a warm process forks. ``theme``: the
    one launches will most likely ask for (another one parses its CSS at launch, as without this).
    Leaves no thread or event loop behind."""
    import tempfile

    from agent_tui.tui.app import DEFAULT_THEME, AgentApp
    from agent_tui.tui.services import TuiServices

    async def first_frame() -> None:
        services = TuiServices(sessions=None, location=tempfile.gettempdir())
        app = AgentApp(services, theme=theme or DEFAULT_THEME, theme_dirs_=None, watch_themes=False, command_dirs_=[])
        async with app.run_test(headless=True, size=(120, 40)) as pilot:
            await pilot.pause()

    asyncio.run(first_frame())


def stop_on_signals(app: AgentApp) -> None:
    """SIGTERM and SIGHUP stop the app as a quit does: the default actions would end the process
    and orphan running tools' process groups. One the caller ignores (``nohup``) stays ignored. A
    quit that wedges does not keep the process alive (:mod:`agent_tui.exit_grace`)."""
    from agent_tui import exit_grace

    def stop(signum: int) -> None:
        exit_grace.arm(signum)
        app.stop_for_signal(signum)

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            loop.add_signal_handler(signum, stop, signum)


@contextlib.contextmanager
def _suspend_handlers_restored() -> Iterator[None]:
    """Textual's terminal driver sets SIGTSTP and SIGCONT handlers that restart its input and
    output threads, and never takes them back. A terminal that hangs up sends SIGHUP and SIGCONT:
    after a quit, while the store closed, that restarted the threads on the dead terminal, where
    the input thread spun at full CPU and, not being a daemon, kept the process from ever ending."""
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


async def _in_daemon_thread(work: Callable[[], None]) -> None:
    """``work`` off the loop, in a thread a quit does not wait for: ``asyncio.run`` joins
    ``to_thread``'s threads, so quitting during LiteLLM's warm-up (seconds, cold) kept the shell
    prompt away until the import finished."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def settle(error: BaseException | None) -> None:
        if done.done():
            return
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)

    def run() -> None:
        error: BaseException | None = None
        try:
            work()
        except BaseException as raised:  # noqa: BLE001 - handed to the awaiting task
            error = raised
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
            loop.call_soon_threadsafe(settle, error)

    threading.Thread(target=run, name="llm-warm-up", daemon=True).start()
    await done


async def _from_core(name: str) -> Any:
    """A name from the core's door, its module imported in a thread so frames keep painting."""
    from agent_tui.core import api

    return await asyncio.to_thread(getattr, api, name)


class CoreOpener:
    """Opens the core after the first frame, cheapest part first.

    0. the settings, validated in a thread (pydantic's import is ~60 ms);
    1. the Sessions facade (store reads: the picker's rows, a transcript) — its
       imports run in a thread so frames keep painting;
    2. the runtime around it (coordinator, runner, tools) — prompts wait for it;
    3. the TUI's block widgets (Textual's Markdown), unless a transcript wanted them already;
    4. LiteLLM, warmed in a thread, with garbage collection paused: the import
       allocates millions of long-lived objects, and a full collection over them
       mid-import stalled typing for 100+ ms; what it created is then frozen.
    One background import at a time keeps the prompt responsive.
    """

    def __init__(self, launch: Launch, layers: Any, services: TuiServices, facts: ModelFacts) -> None:
        self.cli = launch.cli
        self.layers, self.services, self.facts = layers, services, facts
        self.settings: Any = None
        self.sessions: Any = None
        self.runtime: Any = None
        self._task: asyncio.Task | None = None

    async def connect(self) -> None:
        from agent_tui.core.api import ConfigError, DatabaseUnreachable
        from agent_tui.tui.services import StartupFailed

        try:  # pydantic's import and the validation run off the loop
            self.settings = await asyncio.to_thread(self._validate)
        except ConfigError as error:
            raise StartupFailed(str(error)) from None
        agent = self.cli.get("agent")
        problem = None if agent is None else self.settings.agent_choice_error(agent)
        if problem is not None:
            raise StartupFailed(problem, code=2)
        self.facts.settings = self.services.settings = self.settings
        self.services.approval = self.settings.approval
        self._ask_trust_if_needed(self.settings.untrusted_project)
        self.services.paste_chip_lines = self.settings.paste_chip_lines
        self.services.known_models = tuple(self.settings.models)
        open_sessions = await _from_core("open_sessions")
        try:
            self.sessions = await open_sessions(self.settings)
        except DatabaseUnreachable as error:  # nothing could work: exit, as every command does
            raise StartupFailed(str(error), code=error.exit_code) from None
        self.services.connect_to(self.sessions, runnable=False)
        self._task = asyncio.create_task(self._start_runtime())

    def _ask_trust_if_needed(self, untrusted: Any) -> None:
        from agent_tui.core.api import trust
        from agent_tui.tui.screens.trust import TrustQuestion

        if untrusted is None or trust.assumed() is not None:
            return
        before = trust.previously_trusted(untrusted.config)
        self.services.trust_question = TrustQuestion(
            str(untrusted.config), untrusted.powers.lines, None if before is None else before.powers
        )
        self.services.trust_project = lambda: self._trust(untrusted)

    async def _trust(self, untrusted: Any) -> None:
        """Record the trust; the runtime reads the settings again (the trust store is part of the
        config stamp) and the MCP servers the config names start."""
        from agent_tui.core.api import trust

        await asyncio.to_thread(trust.trust, untrusted.config, untrusted.powers)
        await self.services.runnable.wait()
        if self.runtime is not None:
            await self.runtime.warm_mcp(Path(self.services.location))

    def _validate(self) -> Any:  # Settings
        from agent_tui.core.api import validate

        return validate(self.layers)

    def _settings_for(self, where: Path) -> Any:  # Settings; the runtime calls it again after a config edit
        from agent_tui.core.api import load_settings

        return load_settings(where, cli=self.cli)

    def _warn(self, line: str) -> None:
        """Telemetry's warnings (from its threads): on the screen while the app runs, else on stderr."""
        warn = self.services.warn
        if warn is None:
            print(f"agent-tui: {line}", file=sys.stderr, flush=True)
        else:
            warn(line)

    async def _start_runtime(self) -> None:
        try:
            runtime = await _from_core("Runtime")
            start_telemetry = await _from_core("start_telemetry")  # nothing of it is imported when it is off
            observer = await asyncio.to_thread(start_telemetry, self.settings.telemetry, self._warn)
            self.runtime = runtime(self.sessions, self._settings_for, None, None, None, observer=observer)
            self.services.mcp = self.runtime
        except Exception as error:  # noqa: BLE001 - the app stays open for reading and says why
            self.services.runner_error = f"the agent cannot run: {error}"
        finally:
            self.services.runnable.set()
        if self.runtime is not None:
            with contextlib.suppress(Exception):  # a bad config is reported when a prompt runs
                await self.runtime.warm_mcp(Path(self.services.location))
        from agent_tui.tui.lazy import BLOCK_WIDGETS

        await BLOCK_WIDGETS.load()  # before the first block needs it (the picker and a new session do not)
        await _in_daemon_thread(self._warm)

    def _warm(self) -> None:
        """LiteLLM and its first call's own imports and set-up, so the first Enter costs what later
        ones do (loading LiteLLM alone left ~2.5 s of first-call work on the first send)."""
        from agent_tui.core.api import preload_llm

        gc.disable()
        try:
            preload_llm(tokenizer=False)  # idle RSS: ~240 MiB instead of ~330 until the first answer
            self.facts.learn(self.services.model)
        finally:
            gc.freeze()
            gc.enable()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.runtime is not None:
            await self.runtime.close()
        elif self.sessions is not None:
            await self.sessions.close()
