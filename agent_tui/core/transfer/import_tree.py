"""An export with subagents back into sessions: the parent first, then each child linked to the new ids.

``export_jsonl`` writes a session's subagents after its own records, each opened
by an ``x.agent-tui.subagent`` record (its header, with ``meta.spawned_by``);
parents always come before their children. So the file splits at those
records into one part per session, every part gets a new session id up front,
and the parts are built in file order: a child's ``spawned_by`` then names its
parent's new session id and the new id of the assistant message that made the
``task`` call (the call id is kept, as for every call). A file of one session
(an older build's export) is one part and imports exactly as before.

The parent's ``task`` result names the child's session (``session_id: …`` in
its text, ``output.data`` and ``result_meta``, the ids the TUI and ``run
--format json`` follow); the old id would name nothing here, or the original,
so it is rewritten to the new child's id in that one call's result. That
changes what the model saw by an opaque id only, as the import already does
for every session and message id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.transfer.export_jsonl import SUBAGENT
from agent_tui.core.transfer.import_jsonl import Links, NotAnExport, build


@dataclass(frozen=True)
class _Part:
    first: int  # the record number (1-based) of its header
    rows: list[dict[str, Any]]

    @property
    def exported_id(self) -> str | None:
        value = self.rows[0].get("session_id")
        return value if isinstance(value, str) else None

    @property
    def spawned_by(self) -> dict[str, Any]:
        value = (self.rows[0].get("meta") or {}).get("spawned_by")
        return value if isinstance(value, dict) else {}


def split(rows: list[dict[str, Any]]) -> list[_Part]:
    """The parts of an export: the header's session, then one per ``x.agent-tui.subagent`` record."""
    parts: list[_Part] = []
    for number, row in enumerate(rows, 1):
        if number == 1 or row["type"] == SUBAGENT:
            parts.append(_Part(number, []))
        parts[-1].rows.append(row)
    return parts


def sessions_from(
    rows: list[dict[str, Any]], location: str, project_root: str, source: str
) -> list[tuple[str, list[ev.DurableEvent]]]:
    """(new session id, its events) per session in the export, parents first; nothing is written."""
    parts = split(rows)
    new_ids = [ids.session_id() for _ in parts]
    index: dict[str, int] = {}  # exported session id -> its part (the first, should a file repeat one)
    for i, part in enumerate(parts):
        if part.exported_id is not None:
            index.setdefault(part.exported_id, i)
    parents = [_parent(part, index, i, source) for i, part in enumerate(parts)]
    built: list[tuple[str, list[ev.DurableEvent]]] = []
    message_ids: list[dict[str, str]] = []
    for i, part in enumerate(parts):
        links = _links([(child, new_ids[j]) for j, child in enumerate(parts) if parents[j] == i])
        spawned_by = None
        parent = parents[i]
        if parent is not None:
            link = part.spawned_by
            amid = message_ids[parent].get(str(link.get("assistant_message_id")))
            if amid is None or not isinstance(link.get("call_id"), str):
                raise NotAnExport(
                    f"{source}: record {part.first} ({SUBAGENT}) names a task call its parent session does not have"
                )
            spawned_by = ev.SpawnedBy(session_id=new_ids[parent], assistant_message_id=amid, call_id=link["call_id"])
        builder = build(part.rows, location, project_root, source, first=part.first, links=links, spawned_by=spawned_by)
        built.append((new_ids[i], builder.events))
        message_ids.append(builder.message_ids)
    return built


def _links(children: list[tuple[_Part, str]]) -> Links:
    """Where each child's exported id is to be rewritten: the parent's ``task`` call that started it."""
    links: dict[tuple[str, str], tuple[str, str]] = {}
    for child, new_id in children:
        link, old_id = child.spawned_by, child.exported_id
        if old_id is not None:
            links[(str(link.get("assistant_message_id")), str(link.get("call_id")))] = (old_id, new_id)
    return links


def _parent(part: _Part, index: dict[str, int], at: int, source: str) -> int | None:
    """The part of the session that spawned ``part`` (None for the header's); it must come earlier."""
    if at == 0:
        return None
    parent = index.get(str(part.spawned_by.get("session_id")))
    if parent is None or parent >= at:
        raise NotAnExport(f"{source}: record {part.first} ({SUBAGENT}) names no parent session earlier in the file")
    return parent
