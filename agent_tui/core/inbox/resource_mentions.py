"""``@server:uri`` -> a :class:`~agent_tui.core.log.events.ResourcePart`: an MCP resource, read when sent.

``@NAME:rest`` already names a file in the reference folder ``NAME``. It is an MCP
resource instead when ``NAME`` is an MCP server the selected agent uses and ``rest``
starts with a URI scheme (``notes://readme``, ``file:///x``, ``urn:a``); anything
else (``docs:src/a.py``) stays a reference or a path. A server and a reference of the
same name: the URI decides, since a reference path does not begin with ``scheme:``.

The text is read from the server when the prompt is built (the front end asks the
runtime, which holds the connections) and stored in the part, cut like a mentioned
file's, so a replay shows what the model saw. Reading it also asks the server to
report the resource's changes where it can (``tools.mcp.resource_watch``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable

from agent_tui.core.log import events as ev

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S")
ResourceReader = Callable[[str, str], Awaitable[ev.ResourcePart]]
"""Reads ``uri`` from ``server`` at the session's location (the runtime's ``mcp_reader``);
raises ``ToolError`` (or any error with a message) when it cannot."""


def resource_mention(raw: str, servers: Iterable[str]) -> tuple[str, str] | None:
    """(server, uri) when ``@raw`` names a resource of one of ``servers``, else None."""
    name, colon, rest = raw.partition(":")
    if colon and name in servers and _URI.match(rest):
        return name, rest
    return None


def split_mentions(wanted: Iterable[str], servers: Iterable[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The mentions that are paths (or agents), and the resources, each once, in order."""
    chosen = frozenset(servers)
    paths: list[str] = []
    resources: list[tuple[str, str]] = []
    for raw in dict.fromkeys(wanted):
        found = resource_mention(raw, chosen) if chosen else None
        if found is None:
            paths.append(raw)
        elif found not in resources:
            resources.append(found)
    return paths, resources
