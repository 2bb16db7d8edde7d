"""``agent-tui`` (no subcommand): open the Textual app.

The start path imports Textual and the store but never LiteLLM: the app paints
first and warms LiteLLM in a worker thread, then learns the model's context
window. A missing model or key does not stop the app; it says in one line what
to set.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import signal
from pathlib import Path

from agent_tui.commands.errors import fail


from agent_tui.core.api import peek_sessions


class ModelFacts:
    """Context windows: config overrides once the settings are validated, then LiteLLM's map."""

    def __init__(self) -> None:
        self.settings = None  # Settings, set by Core.connect after the first frame
        self.windows: dict[str, int | None] = {}

    def window(self, model: str | None) -> int | None:
        if not model or self.settings is None:
            return None
        if model not in self.windows:
            configured = self.settings.model_settings(model).context_window
            if configured is not None:
                self.windows[model] = configured
        return self.windows.get(model)

    def learn(self, model: str | None) -> None:
        """Blocking (may import LiteLLM): run in a worker thread."""
        if not model or self.settings is None or self.windows.get(model) is not None:
            return
        from agent_tui.llm import lazy, model_info

        lazy.load()
        self.windows[model] = model_info(model, self.settings.model_settings(model)).context_window


def setup_hint(model: str | None, api_base: str | None, api_key: str | None) -> str | None:
    """One line saying what to configure, or None when a model and key are set."""
    from agent_tui.llm.credentials import CredentialsError, resolve_credentials

    try:  # only what is known without LiteLLM (not imported before the first frame): the first step checks the rest
        resolve_credentials(model, api_base=api_base, api_key=api_key, use_litellm=False)
    except CredentialsError as error:
        return str(error)
    return None


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


def main(args: argparse.Namespace) -> int:
    gc.disable()  # start-up makes long-lived objects only; the app turns collection on after its first frame
    location = Path.cwd().resolve()
    peek = EarlyPeek(str(location)) if args.resume == "" else peek_sessions
    from agent_tui.core.api import ConfigError, read_layers

    cli = {"model": args.model, "api_base": args.api_base, "api_key": args.api_key}
    try:  # read now (a broken file stops us here); validated by Core.connect after the first frame
        layers = read_layers(location, cli=cli)
    except ConfigError as error:
        return fail(str(error))
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    try:
        return asyncio.run(_run(args, layers, location, peek))
    except KeyboardInterrupt:
        return 130


async def _run(args: argparse.Namespace, layers, location: Path, peek=peek_sessions) -> int:  # noqa: ANN001 - Layers
    from agent_tui.core.api import DEFAULT_AGENT
    from agent_tui.tui.app import DEFAULT_THEME, AgentApp, StartMode
    from agent_tui.tui.context import TuiContext

    facts = ModelFacts()
    model = layers.text("model")
    ctx = TuiContext(
        sessions=None, location=str(location), model=model, agent=layers.text("agent") or DEFAULT_AGENT,
        context_window=facts.window, setup_hint=setup_hint(model, layers.text("api_base"), layers.text("api_key")),
        learn_model=facts.learn, peek_sessions=peek,
    )  # fmt: skip
    start = StartMode(
        continue_latest=bool(args.continue_),
        picker=args.resume == "",
        session_id=args.resume or None,
    )
    core = Core(args, layers, location, ctx, facts)
    app = AgentApp(ctx, start=start, theme=layers.text("theme") or DEFAULT_THEME, connect=core.connect)
    loop = asyncio.get_running_loop()  # the default actions would orphan running tools' processes
    loop.add_signal_handler(signal.SIGTERM, app.stop_for_signal, signal.SIGTERM)
    loop.add_signal_handler(signal.SIGHUP, app.stop_for_signal, signal.SIGHUP)
    try:
        await app.run_async()
    finally:
        await core.close()
    if app.startup_error is not None:
        return fail(app.startup_error)
    if app.stopped_by is not None:
        return 128 + app.stopped_by
    return app.return_code or 0


def _core(name: str):  # noqa: ANN202 - whatever core.api names
    """A core.api name, imported where this runs (a worker thread keeps frames painting)."""
    from agent_tui.core import api

    return getattr(api, name)


class Core:
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

    def __init__(self, args: argparse.Namespace, layers, location: Path, ctx, facts: ModelFacts) -> None:  # noqa: ANN001
        self.cli = {"model": args.model, "api_base": args.api_base, "api_key": args.api_key}
        self.layers, self.location, self.ctx, self.facts = layers, location, ctx, facts
        self.settings = None
        self.sessions = None
        self.runtime = None
        self._task: asyncio.Task | None = None

    async def connect(self) -> None:
        from agent_tui.core.api import ConfigError
        from agent_tui.tui.context import StartupFailed

        try:  # pydantic's import and the validation run off the loop
            self.settings = await asyncio.to_thread(self._validate)
        except ConfigError as error:
            raise StartupFailed(str(error)) from None
        self.facts.settings = self.settings
        self.ctx.known_models = tuple(self.settings.models)
        open_sessions = await asyncio.to_thread(_core, "open_sessions")  # the store's imports, off the loop
        self.sessions = await open_sessions(self.settings)
        self.ctx.connect_to(self.sessions, runnable=False)
        self._task = asyncio.create_task(self._start_runtime())

    def _validate(self):  # noqa: ANN202 - Settings
        from agent_tui.core.api import validate

        return validate(self.layers)

    def _settings_for(self, where: Path):  # noqa: ANN202 - Settings; the runtime calls it again after a config edit
        from agent_tui.core.api import load_settings

        return load_settings(where, cli=self.cli)

    async def _start_runtime(self) -> None:
        try:
            runtime = await asyncio.to_thread(_core, "Runtime")
            self.runtime = runtime(self.sessions, self._settings_for, None, None, None)
        except Exception as error:  # noqa: BLE001 - the app stays open for reading and says why
            self.ctx.runner_error = f"the agent cannot run: {error}"
        finally:
            self.ctx.runnable.set()
        from agent_tui.tui.lazy import BLOCK_WIDGETS

        await BLOCK_WIDGETS.load()  # before the first block needs it (the picker and a new session do not)
        await asyncio.to_thread(self._warm)

    def _warm(self) -> None:
        gc.disable()
        try:
            self.facts.learn(self.ctx.model)
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
