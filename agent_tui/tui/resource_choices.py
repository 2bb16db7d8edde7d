"""``@server:`` completion: an MCP server's resources and templates as choices (no Textual).

``@no`` offers ``@notes:`` (a server with resources, beside the files, like a
reference's ``NAME:``); ``@notes:`` then offers what ``notes`` listed, matched on
URI or name. A resource inserts ``@notes:notes://readme`` and a space; a template
inserts its URI up to the first ``{`` and no space, for the rest to be typed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_tui.tui.choices import Choice
from agent_tui.tui.file_index import mention

LIMIT = 50
"""At most this many of a server's resources are offered at once (type more to narrow)."""


def server_choices(query: str, resources: Mapping[str, Sequence[Any]]) -> list[Choice]:
    """``server:`` for each server with resources whose name starts with ``query`` (no ``:`` typed yet)."""
    if ":" in query:
        return []
    return [
        Choice(mention(f"{server}:"), f"{server}:", f"MCP server · {len(listed)} resources")
        for server, listed in sorted(resources.items())
        if server.lower().startswith(query.lower())
    ]


def resource_choices(query: str, resources: Mapping[str, Sequence[Any]]) -> list[Choice] | None:
    """The choices for ``server:rest``, or None when ``query`` names no server with resources."""
    server, colon, rest = query.partition(":")
    if not colon or server not in resources:
        return None
    wanted = rest.lower()
    out: list[Choice] = []
    for info in resources[server]:
        if wanted and wanted not in info.uri.lower() and wanted not in info.name.lower():
            continue
        about = " · ".join(x for x in (info.name, "template" if info.template else info.mime, info.description) if x)
        if info.template:
            head = info.uri.split("{", 1)[0]
            out.append(Choice(f"@{server}:{head}", f"{server}:{info.uri}", about))
        else:
            out.append(Choice(mention(f"{server}:{info.uri}"), f"{server}:{info.uri}", about))
        if len(out) == LIMIT:
            break
    return out
