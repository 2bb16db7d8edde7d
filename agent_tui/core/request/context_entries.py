"""The HTTP API's context entries, for the front ends: one object, the facade's ``context_entries``.

A caller keeps JSON values on a session under ``api/<name>`` keys
(``session.context.put`` / ``session.context.deleted``); the instructions read
them as a source of what the model is told (``instructions.py``), while the
``core/*`` keys are reserved for the built-in sources. The room sits below the
store, so what of the store it uses is a Protocol (``EntryStore``) the store
meets, and a session it names is read with the facade's ``get``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from agent_tui.core.errors import InvalidRequest, UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.log.records import SessionRecord

T = TypeVar("T")
_API_KEY = re.compile(r"^api/[A-Za-z0-9_.\-][A-Za-z0-9_.\-/]*$")


class _Conn(Protocol):
    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...


class EntryTransaction(Protocol):
    """What of the store's ``Tx`` a delete uses."""

    @property
    def conn(self) -> _Conn: ...

    def head(self, session_id: str) -> int | None: ...

    def append(self, session_id: str, event: ev.DurableEvent, first_seq: int = 1, at_ms: int | None = None) -> Any: ...


class EntryStore(Protocol):
    """What of the store the entries are read and written with."""

    async def context_entries(self, session_id: str) -> dict[str, Any]: ...

    async def publish(self, session_id: str, event: ev.DurableEvent) -> ev.StoredEvent: ...

    async def transact(self, job: Callable[[EntryTransaction], T]) -> T: ...


def _check_key(key: str) -> None:
    if key.startswith("core/"):
        raise InvalidRequest(f"context key {key} is reserved for built-in sources; use api/<name>")
    if not _API_KEY.match(key):
        raise InvalidRequest(f"context key {key!r} must look like api/<name>")


class ContextEntries:
    """A session's ``api/<name>`` context entries: ``put``, ``delete``, ``read``."""

    def __init__(self, store: EntryStore, get: Callable[[str], Awaitable[SessionRecord]]) -> None:
        self._store = store
        self._session = get  # the facade's ``get``: the session's row, or ``UnknownSession``

    async def put(self, session_id: str, key: str, value: Any) -> None:
        """Set an entry; the value must be JSON."""
        _check_key(key)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise InvalidRequest(f"context value for {key} is not JSON: {error}") from None
        await self._store.publish(session_id, ev.ContextPut(key=key, value=value))

    async def delete(self, session_id: str, key: str) -> None:
        """Delete an entry; deleting an absent key writes nothing."""
        _check_key(key)

        def job(tx: EntryTransaction) -> None:
            if tx.conn.execute(
                "SELECT 1 FROM context_entry WHERE session_id = ? AND key = ?", (session_id, key)
            ).fetchone():
                tx.append(session_id, ev.ContextDeleted(key=key))
            elif tx.head(session_id) is None:
                raise UnknownSession(session_id)

        await self._store.transact(job)

    async def read(self, session_id: str) -> dict[str, Any]:
        """The session's entries, by key."""
        await self._session(session_id)
        return await self._store.context_entries(session_id)
