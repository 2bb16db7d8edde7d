"""``agent-tui`` (no subcommand): open the Textual app.

The start path imports Textual and the store but never LiteLLM: the app paints
first and warms LiteLLM in a worker thread, then learns the model's context
window. A missing model or key does not stop the app; it says in one line what
to set.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
from pathlib import Path

from agent_tui.commands.errors import fail


class ModelFacts:
    """Context windows, learned after LiteLLM has warmed (config overrides first)."""

    def __init__(self, settings) -> None:  # noqa: ANN001 - Settings, imported lazily
        self.settings = settings
        self.windows: dict[str, int | None] = {}

    def window(self, model: str | None) -> int | None:
        if not model:
            return None
        if model not in self.windows:
            configured = self.settings.model_settings(model).context_window
            if configured is not None:
                self.windows[model] = configured
        return self.windows.get(model)

    def learn(self, model: str | None) -> None:
        """Blocking (may import LiteLLM): run in a worker thread."""
        if not model or self.windows.get(model) is not None:
            return
        from agent_tui.llm import lazy, model_info

        lazy.load()
        self.windows[model] = model_info(model, self.settings.model_settings(model)).context_window


def setup_hint(settings) -> str | None:  # noqa: ANN001
    """One line saying what to configure, or None when a model and key are set."""
    from agent_tui.llm.credentials import CredentialsError, resolve_credentials

    model = settings.model
    if model and "/" not in model:
        return None  # a bare name needs LiteLLM to know its provider: checked when the first step runs
    try:
        resolve_credentials(model, api_base=settings.api_base, api_key=settings.api_key)
    except CredentialsError as error:
        return str(error)
    return None


def main(args: argparse.Namespace) -> int:
    from agent_tui.core.config import ConfigError, load_settings

    location = Path.cwd().resolve()
    cli = {"model": args.model, "api_base": args.api_base, "api_key": args.api_key}
    try:
        settings = load_settings(location, cli=cli)
    except ConfigError as error:
        return fail(str(error))
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    try:
        return asyncio.run(_run(args, settings, location))
    except KeyboardInterrupt:
        return 130


async def _run(args: argparse.Namespace, settings, location: Path) -> int:  # noqa: ANN001
    from agent_tui.tui.app import AgentApp, StartMode
    from agent_tui.tui.context import TuiContext

    facts = ModelFacts(settings)
    ctx = TuiContext(
        sessions=None, location=str(location), model=settings.model, agent=settings.agent,
        context_window=facts.window, known_models=tuple(settings.models), setup_hint=setup_hint(settings),
    )  # fmt: skip
    start = StartMode(
        continue_latest=bool(args.continue_),
        picker=args.resume == "",
        session_id=args.resume or None,
    )
    closers: list = []

    async def connect():  # noqa: ANN202 - after the first frame: the runtime's imports cost ~150 ms
        sessions, close = await _open_core(args, settings, location)
        closers.append(close)
        return sessions

    def warm() -> None:
        """In a worker thread after the first frame: import LiteLLM, learn the context window.

        The import allocates millions of long-lived objects; a full garbage
        collection over them mid-import stalls typing for 100+ ms, so collection
        is paused for the import and what it created is frozen afterwards.
        """
        gc.disable()
        try:
            facts.learn(ctx.model)
        finally:
            gc.freeze()
            gc.enable()

    app = AgentApp(ctx, start=start, theme=settings.theme, warm=warm, connect=connect)
    try:
        await app.run_async()
    finally:
        for close in closers:
            await close()
    return app.return_code or 0


async def _open_core(args: argparse.Namespace, settings, location: Path):  # noqa: ANN001, ANN202
    """The core runtime (store + facade + coordinator + runner); returns its facade and closer."""
    import importlib

    from agent_tui.core.config import load_settings

    cli = {"model": args.model, "api_base": args.api_base, "api_key": args.api_key}

    def settings_for(where: Path):  # noqa: ANN202 - this directory's settings are already loaded
        return settings if where.resolve() == location else load_settings(where, cli=cli)

    # Imported in a thread so the first frames keep painting meanwhile.
    runtime_module = await asyncio.to_thread(importlib.import_module, "agent_tui.core.runtime")
    runtime = await runtime_module.Runtime.open(settings_for, cli=cli)
    return runtime.sessions, runtime.close
