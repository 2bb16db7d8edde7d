"""The mentioned resources a server reports changes of, and the changes not yet taken.

A resource the user mentioned (``@server:uri``) is watched when the server declares
``resources.subscribe``: a 2026-era server through a ``subscriptions/listen`` stream
whose filter names every watched URI (opened again, with the new set, when one is
added), an older one through ``resources/subscribe`` (its
``notifications/resources/updated`` reach ``connection._on_message``). A change
is only counted here (``version``); at each step boundary the runtime compares a
session's mentioned resources with the versions it last told that session of,
reads the changed ones again and tells the model (``core.request.mcp_resources``).

The watched set outlives a restart of the server (it is watched again once ready);
no SDK import: the listen stream's events are read by attribute.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable
from typing import Any

_log = logging.getLogger("mcp.servers")
ACK_TIMEOUT_S = 10.0
"""How long a new listen stream may take to be acknowledged before the watch is given up (logged)."""


class ResourceWatch:
    def __init__(self, server: str, on_change: Callable[[], None]) -> None:
        self.server = server
        self.wanted: set[str] = set()
        """The URIs asked for (kept across restarts)."""
        self._versions: dict[str, int] = {}
        self._on_change = on_change
        self._client: Any = None
        self._supported = False
        self._legacy = False
        self._listening: asyncio.Task[None] | None = None
        self._rewatch: asyncio.Task[bool] | None = None

    @property
    def supported(self) -> bool:
        """The running server offers subscriptions."""
        return self._supported and self._client is not None

    def connected(self, client: Any, supported: bool) -> None:
        """A (re)started server: watch again what was wanted, where it offers subscriptions."""
        self._client, self._supported, self._legacy = client, supported, False
        if self.supported and self.wanted:
            self._rewatch = asyncio.get_running_loop().create_task(
                self._listen(client), name=f"mcp-rewatch:{self.server}"
            )

    @property
    def rewatching(self) -> asyncio.Task[bool] | None:
        """The watch being set up again after a (re)start, while it is under way (a step waits for it)."""
        return self._rewatch if self._rewatch is not None and not self._rewatch.done() else None

    def disconnected(self) -> None:
        self._client = None
        if self._rewatch is not None and not self._rewatch.done():
            self._rewatch.cancel()
        self._cancel()

    def stop(self) -> None:
        self.disconnected()

    def _cancel(self) -> None:
        if self._listening is not None and not self._listening.done():
            self._listening.cancel()
        self._listening = None

    async def subscribe(self, uri: str) -> bool:
        """Watch ``uri``; True when the server will report its changes."""
        client = self._client
        if not self.supported:
            return False
        if uri in self.wanted:
            return True
        self.wanted.add(uri)
        if self._legacy:
            return await _subscribe_legacy(client, uri, self.server)
        return await self._listen(client)

    async def _listen(self, client: Any) -> bool:
        """(Re)open the listen stream for every wanted URI and wait for its acknowledgment; on an older
        protocol subscribe to each with ``resources/subscribe`` instead."""
        self._cancel()
        acknowledged: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._listening = asyncio.get_running_loop().create_task(
            self._stream(client, sorted(self.wanted), acknowledged), name=f"mcp-watch:{self.server}"
        )
        try:
            async with asyncio.timeout(ACK_TIMEOUT_S):
                how = await asyncio.shield(acknowledged)
        except TimeoutError:
            _log.info("MCP server %s: resource watch not acknowledged", self.server)
            return False
        if how != "legacy":
            return how == "listening"
        self._legacy = True
        results = [await _subscribe_legacy(client, uri, self.server) for uri in sorted(self.wanted)]
        return all(results)

    async def _stream(self, client: Any, uris: list[str], acknowledged: asyncio.Future[str]) -> None:
        """``acknowledged`` says how it went: ``listening``, ``legacy`` (a 2025-era connection) or ``failed``."""
        try:
            async with client.listen(resource_subscriptions=uris) as events:
                acknowledged.set_result("listening")
                async for event in events:
                    uri = getattr(event, "uri", None)
                    if isinstance(uri, str):
                        self.updated(uri)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - an older protocol, or the server went away
            if type(error).__name__ == "ListenNotSupportedError" and not acknowledged.done():
                acknowledged.set_result("legacy")
                return
            _log.info("MCP server %s: resource watch ended: %s", self.server, error)
        finally:
            if not acknowledged.done():
                acknowledged.set_result("failed")

    def updated(self, uri: str) -> None:
        """The server says ``uri`` changed: counted when it is watched (one notice to listeners)."""
        if uri in self.wanted:
            self._versions[uri] = self._versions.get(uri, 0) + 1
            self._on_change()

    def version(self, uri: str) -> int:
        """How many changes of ``uri`` the server reported in this process (0: none)."""
        return self._versions.get(uri, 0)


async def _subscribe_legacy(client: Any, uri: str, server: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # MCPDeprecationWarning: resources/subscribe is 2025-era
            await client.subscribe_resource(uri)
    except Exception as error:  # noqa: BLE001 - the server refused, or went away
        _log.info("MCP server %s: cannot subscribe to %s: %s", server, uri, error)
        return False
    return True
