"""Mentioned MCP resources that changed: an instruction update at the next step boundary.

A resource mentioned with ``@server:uri`` is watched where its server offers it
(``tools.mcp.resource_watch``). When the server reports a change, the next step's
instructions read it again and tell the model its new text, the way a nested
AGENTS.md found mid-session is admitted (source ``core/mcp_resources``): one
``instructions.updated`` system message, durable, so a replay sees what the model saw.

The mentions are derived from the log (the user messages' resource parts), not stored
beside it: a rewind that takes the prompt back stops the updates too. The value is
``{"server:uri": text}`` of the resources that changed; an update names only those
whose text differs from what the model was last told (the others are not restated).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agent_tui.core.log.records import MessageRecord, SessionRecord

Mentions = Callable[[], Awaitable[list[tuple[str, str]]]]
"""The session's mentioned (server, uri), read from its log only when asked (a step with no server
that can report changes never reads them)."""
McpResourceChanges = Callable[[SessionRecord, Mentions], Awaitable[dict[str, str | None]]]
"""Per mentioned (server, uri): its new text when its server reported a change not yet told, else None."""


async def no_changes(_: SessionRecord, __: Mentions) -> dict[str, str | None]:
    return {}


def mentioned_resources(messages: Iterable[MessageRecord]) -> list[tuple[str, str]]:
    """The (server, uri) of every resource part in the user messages, once each, in order."""
    out: list[tuple[str, str]] = []
    for message in messages:
        if message.kind != "user":
            continue
        for part in message.data.get("prompt", []):
            if part.get("type") == "resource":
                found = (str(part.get("server")), str(part.get("uri")))
                if found not in out:
                    out.append(found)
    return out


def settle(observed: dict[str, str | None], previous: Any) -> dict[str, str]:
    """A resource not re-read now keeps the text the model was last told of."""
    kept = dict(previous) if isinstance(previous, dict) else {}
    kept.update({key: text for key, text in observed.items() if text is not None})
    return kept


def _blocks(value: dict[str, str]) -> str:
    return "\n\n".join(f'<resource mention="@{key}">\n{text}\n</resource>' for key, text in value.items())


def baseline_text(value: dict[str, str]) -> str:
    """After a compaction: the latest text of each resource that changed since it was mentioned."""
    if not value:
        return ""
    return "These MCP resources mentioned in this conversation changed since; their text now:\n\n" + _blocks(value)


def update_text(value: dict[str, str], previous: Any) -> str:
    """Only the resources whose text differs from what the model was last told."""
    before = previous if isinstance(previous, dict) else {}
    changed = {key: text for key, text in value.items() if before.get(key) != text}
    if not changed:
        return ""
    return "These MCP resources mentioned earlier changed (their server said so); their text now:\n\n" + _blocks(
        changed
    )
