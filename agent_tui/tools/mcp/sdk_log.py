"""Loading the MCP SDK (``load_sdk``): its own log records go to agent-tui's ``mcp.log``, never to the terminal the TUI draws on."""

from __future__ import annotations

import asyncio
import importlib
import logging
from pathlib import Path

from agent_tui.tools.private_files import touch_private


class _Ours:
    """Marks the handlers this module added (a later call replaces them)."""


class _FileHandler(_Ours, logging.FileHandler):
    pass


class _NullHandler(_Ours, logging.NullHandler):
    pass


def route_sdk_logs(log_file: Path | None) -> None:
    """The ``mcp`` loggers write to ``log_file`` only: without a handler of their own, Python's
    last-resort handler would print their warnings and tracebacks over the TUI."""
    logger = logging.getLogger("mcp")
    for old in [h for h in logger.handlers if isinstance(h, _Ours)]:
        if getattr(old, "baseFilename", None) == (str(log_file.resolve()) if log_file else None):
            return
        logger.removeHandler(old)
        old.close()
    handler: logging.Handler = _NullHandler()
    if log_file is not None:
        try:
            touch_private(log_file)  # what servers log may name tokens and paths: the user's only
            handler = _FileHandler(log_file, encoding="utf-8", delay=True)
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        except OSError:
            handler = _NullHandler()
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


async def load_sdk(log_file: Path | None = None) -> None:
    """Import the SDK in a thread, so the event loop (the TUI) keeps running meanwhile; its log
    records go to ``log_file`` (or nowhere), never to the terminal the TUI draws on."""
    await asyncio.to_thread(route_sdk_logs, log_file)
    await asyncio.to_thread(importlib.import_module, "mcp.client.stdio")
    await asyncio.to_thread(importlib.import_module, "mcp.client.streamable_http")
    await asyncio.to_thread(importlib.import_module, "mcp.client.sse")
