"""The permission gate's asks and the saved approvals, for the front ends: one object, the facade's
``permissions``.

A tool call the gate cannot decide asks (``session.permission.asked``); a front
end lists the pending asks, replies by id (``session.permission.replied``), or
waits until some process has. "Always" replies are saved per project; a front
end lists them and revokes them. Unlike MCP servers' questions (``McpAsks``),
both the asks and the replies are durable, so any process may answer. The room
shares its floor with the store, so what of the store it uses is a Protocol
(``PermissionStore``) the store meets; a session it names is read with the
facade's ``get``, and a wait follows the session through the facade's bus.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from agent_tui.core.errors import InvalidRequest, StoreError
from agent_tui.core.log import events as ev
from agent_tui.core.log.records import ApprovalRecord, PermissionRecord, SessionRecord
from agent_tui.core.settings import paths
from agent_tui.vocab.kinds import PermissionReply


class UnknownPermission(StoreError):
    def __init__(self, request_id: str) -> None:
        super().__init__(f"unknown permission request: {request_id}")


class Wakes(Protocol):
    """A subscription to one session's head wakes (the bus's ``Subscription``)."""

    def __enter__(self) -> Wakes: ...

    def __exit__(self, *_: object) -> None: ...

    async def get(self) -> Any: ...


class PermissionStore(Protocol):
    """What of the store the asks and the saved approvals are read and written with."""

    async def pending_permissions(self, session_id: str) -> list[PermissionRecord]: ...

    async def permission(self, request_id: str) -> PermissionRecord | None: ...

    async def approvals(self, project_root: str | Path) -> list[ApprovalRecord]: ...

    async def revoke_approvals(self, project_root: str | Path, approvals: list[ApprovalRecord], at_ms: int) -> None: ...

    async def publish(self, session_id: str, event: ev.DurableEvent) -> ev.StoredEvent: ...


class PermissionAsks:
    """The pending permission asks (``pending``, ``reply``, ``wait_reply``) and the project's saved
    "always" approvals (``approvals``, ``revoke_approvals``)."""

    def __init__(
        self,
        store: PermissionStore,
        get: Callable[[str], Awaitable[SessionRecord]],
        wakes: Callable[[str], Wakes],
    ) -> None:
        self._store = store
        self._session = get  # the facade's ``get``: the session's row, or ``UnknownSession``
        self._wakes = wakes  # one session's head wakes, from the facade's bus

    async def pending(self, session_id: str) -> list[PermissionRecord]:
        """The session's asks waiting for a reply."""
        await self._session(session_id)
        return await self._store.pending_permissions(session_id)

    async def reply(self, request_id: str, reply: PermissionReply | str, message: str | None = None) -> None:
        asked = await self._store.permission(request_id)
        if asked is None:
            raise UnknownPermission(request_id)
        try:
            answer = PermissionReply(reply)
        except ValueError:
            raise InvalidRequest(f"reply must be once, always or reject, not {reply!r}") from None
        await self._store.publish(
            asked.session_id, ev.PermissionReplied(request_id=request_id, reply=answer, message=message)
        )

    async def wait_reply(self, request_id: str) -> PermissionRecord:
        """Resolve once ``permission.replied`` for the request is durable (any process)."""
        asked = await self._store.permission(request_id)
        if asked is None:
            raise UnknownPermission(request_id)
        with self._wakes(asked.session_id) as wakes:
            while True:
                record = await self._store.permission(request_id)
                if record is not None and record.reply is not None:
                    return record
                await wakes.get()

    async def approvals(self, location: str | Path) -> list[ApprovalRecord]:
        """The "always" approvals saved for the project ``location`` lies in, oldest first."""
        root = await asyncio.to_thread(lambda: paths.project_root(Path(location).resolve()))
        return await self._store.approvals(root)

    async def revoke_approvals(
        self, location: str | Path, action: str | None = None, pattern: str | None = None
    ) -> list[ApprovalRecord]:
        """Revoke the project's saved approvals of ``action`` and ``pattern`` (each None: any); returns
        those revoked. From the next permission check on, what they allowed is asked again."""
        saved = await self.approvals(location)
        chosen = [
            a for a in saved if (action is None or a.action == action) and (pattern is None or a.pattern == pattern)
        ]
        if chosen:
            at = max([int(time.time() * 1000), *(a.created for a in chosen)])
            await self._store.revoke_approvals(chosen[0].project_root, chosen, at)
        return chosen
