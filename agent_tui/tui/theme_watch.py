"""Reload theme files when they change, without blocking the event loop.

``watchfiles.awatch`` waits in a Rust thread; each changed ``*.toml`` is re-read
in a worker thread and handed to a callback as a ``Theme`` or an error line.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from pathlib import Path

from textual.theme import Theme

from agent_tui.tui.themes import ThemeError, load_theme_file


def import_watchfiles():  # noqa: ANN202 - the module
    """watchfiles (~20 ms) and the anyio backend its ``awatch`` imports on first use (~70 ms,
    which stalled typing when it ran on the event loop), both in a worker thread."""
    watchfiles = importlib.import_module("watchfiles")
    try:  # anyio's private module: only a head start, so a rename upstream costs a stall, not the app
        importlib.import_module("anyio._backends._asyncio")
    except ImportError:
        pass
    return watchfiles


async def watch_theme_files(
    dirs: list[Path],
    on_theme: Callable[[Theme], None],
    on_error: Callable[[str], None],
    stop: asyncio.Event | None = None,
    debounce_ms: int = 150,
) -> None:
    """Run until ``stop`` is set (or the task is cancelled)."""
    existing = [str(d) for d in dirs if d.is_dir()]
    if not existing:
        return
    watchfiles = await asyncio.to_thread(import_watchfiles)
    async for changes in watchfiles.awatch(*existing, stop_event=stop, debounce=debounce_ms, step=50, recursive=False):
        changed = sorted({Path(p) for kind, p in changes if kind != watchfiles.Change.deleted and p.endswith(".toml")})
        for path in changed:
            try:
                theme = await asyncio.to_thread(load_theme_file, path)
            except ThemeError as error:
                on_error(str(error))
                continue
            on_theme(theme)
