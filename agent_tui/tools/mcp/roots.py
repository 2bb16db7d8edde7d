"""The client's roots (``roots/list``): the folders a server may work in, as ``file://`` URIs.

A server such as the official filesystem server, started without directories,
asks the client for them; agent-tui answers with the project root and the
``[references.NAME]`` folders (core computes them from the settings). When
they change (settings reloaded with other references) the server is told with
``notifications/roots/list_changed`` and asks again. Roots are deprecated by
the 2026 protocol but still what servers use; the SDK's warning is silenced.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def distinct(paths: Iterable[Path]) -> tuple[Path, ...]:
    """Absolute folders, each once, in the order given (the project root first)."""
    out: list[Path] = []
    for path in paths:
        resolved = Path(path).resolve()
        if resolved not in out:
            out.append(resolved)
    return tuple(out)


def listed(paths: Iterable[Path]) -> list[tuple[str, str]]:
    """(``file://`` URI, name) per folder: what ``connection`` answers ``roots/list`` with (it alone
    imports the SDK, so it builds the ``ListRootsResult``)."""
    return [(path.as_uri(), path.name or str(path)) for path in paths]


async def announce_change(client: Any, server: str) -> None:
    """Send ``notifications/roots/list_changed``; a server gone meanwhile is not worth a failure here."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # MCPDeprecationWarning: roots, deprecated as of 2026-07-28
            await client.send_roots_list_changed()
    except Exception as error:  # noqa: BLE001 - a closed transport; the next start lists the roots anew
        logging.getLogger("mcp.servers").debug("MCP server %s: roots change not sent: %s", server, error)
