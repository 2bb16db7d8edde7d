"""An imported foreign session as one store transaction, once per source session unless asked again.

The source's session id is kept on ``session.created`` (``imported_from``);
the transaction that would write a second session for the same source finds
the first one there and writes nothing (``--again`` writes another). Events
keep the source's times, so the picker dates the session when it happened.
The job runs on the store's writer (``Sessions.transfer.import_foreign`` hands it over);
this room sits below the store, so it names the transaction by what it uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.transfer.foreign.draft import Imported


class _Dialect(Protocol):
    """What of the engine's SQL dialect (``projections/sql.py``) the job uses."""

    log_order: str

    def json_field(self, column: str, key: str) -> str: ...


class _Conn(Protocol):
    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...


class Transaction(Protocol):
    """What of the store's ``Tx`` the job uses."""

    @property
    def conn(self) -> _Conn: ...

    @property
    def dialect(self) -> _Dialect: ...

    def append(self, session_id: str, event: ev.DurableEvent, first_seq: int = 1, at_ms: int | None = None) -> Any: ...


@dataclass(frozen=True)
class ImportOutcome:
    """What importing one foreign session did: the session (new, or the one made before) and what it held."""

    session_id: str
    created: bool
    imported: Imported


def job(
    imported: Imported, location: Path, project_root: Path, *, again: bool
) -> tuple[str, Callable[[Transaction], str | None]]:
    """The new session's id and the write job; the job returns the id of an earlier import of the same
    source instead of writing (unless ``again``). The source's subagents' sessions are written after it
    as its children, each spawned by its ``task`` call, whose result names the child as a live one does."""
    session_id = ids.session_id()
    sessions = _sessions(imported, session_id, None, str(location), str(project_root))

    def run(tx: Transaction) -> str | None:
        if not again:
            row = tx.conn.execute(
                _find(tx.dialect), (ev.SessionCreated.TYPE, imported.agent, imported.source_id)
            ).fetchone()
            if row is not None:
                return str(row[0])
        for written, events in sessions:
            for event, at in events:
                tx.append(written, event, at_ms=at)
        return None

    return session_id, run


def _find(dialect: _Dialect) -> str:
    """The first session imported from this source, in the log's order."""
    field = dialect.json_field
    return (
        f"SELECT session_id FROM event WHERE type = ? AND {field('data_json', 'imported_from.agent')} = ?"
        f" AND {field('data_json', 'imported_from.id')} = ? ORDER BY {dialect.log_order} LIMIT 1"
    )


Timed = tuple[ev.DurableEvent, int | None]


def _sessions(
    imported: Imported, session_id: str, spawned_by: ev.SpawnedBy | None, location: str, project_root: str
) -> list[tuple[str, list[Timed]]]:
    """This session's events (``session.created`` first) and then its children's, depth first."""
    origin = ev.ImportedFrom(agent=imported.agent, id=imported.source_id, path=imported.path, version=imported.version)
    created = ev.SessionCreated(
        location=location,
        project_root=project_root,
        title=imported.title,
        imported_from=origin,  # no model: the source's names its steps; a resumed turn uses this config's
        spawned_by=spawned_by,
        **({"agent": imported.subagent} if imported.subagent else {}),
    )
    first_at = next((at for _, at in imported.events if at is not None), None)
    events: list[Timed] = [(created, first_at)]
    for event, at in imported.events:  # a subagent's steps are its agent's, as a live child's are
        if imported.subagent and isinstance(event, ev.StepStarted):
            event = event.model_copy(update={"agent": imported.subagent})
        events.append((event, at))
    found = [(session_id, events)]
    for child in imported.children:
        child_id = ids.session_id()
        made = _link(events, child, child_id)
        link = ev.SpawnedBy(session_id=session_id, assistant_message_id=made, call_id=child.spawned_by_call or "")
        found += _sessions(child, child_id, link, location, project_root)
    return found


def _link(events: list[Timed], child: Imported, child_id: str) -> str:
    """Make the result of the call that started ``child`` name its session (text, data and meta, as
    the live ``task`` tool's does); returns the assistant message that made the call."""
    meta = {"session_id": child_id, "agent": child.subagent}
    ending = f"\n\nsession_id: {child_id}"
    made = ""
    for i, (event, at) in enumerate(events):
        match event:
            case ev.ToolCalled(call_id=call) if call == child.spawned_by_call:
                made = event.assistant_message_id
            case ev.ToolSucceeded(call_id=call) if call == child.spawned_by_call:
                output = event.output.model_copy(
                    update={"text": event.output.text + ending, "data": {**event.output.data, **meta}}
                )
                events[i] = (event.model_copy(update={"output": output, "result_meta": meta}), at)
            case ev.ToolFailed(call_id=call) if call == child.spawned_by_call:
                error = event.error.model_copy(update={"message": event.error.message + ending})
                events[i] = (event.model_copy(update={"error": error, "result_meta": meta}), at)
    return made
