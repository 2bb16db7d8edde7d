"""Refusals made before any handler runs: a foreign Host, a path id that is no id.

DNS rebinding: a web page on ``evil.example`` can make its own name resolve to
127.0.0.1 and then talk to this server from the browser, with
``Host: evil.example``. Only a request addressed to this server by a loopback
name (``localhost``, ``127.0.0.1``, ``[::1]``) or by the address it arrived
on, with the port it arrived on, is served; anything else is a 421.

A path id (a session, an input, a permission request) that cannot be an id is
a 400 here, so ``../x``, 10 000 characters or non-ASCII never reach the store.
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from agent_tui.server.bodies import ID_PATTERN
from agent_tui.server.errors import ApiError, bad_request

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
ID_PARAMS = {"id": "session id", "input_id": "input id", "request_id": "request id"}
"""The path parameters that name a record by id (a context ``key`` is free text)."""
_ID = re.compile(ID_PATTERN)
_SHOWN = 80
"""At most this much of a refused value is echoed back."""


def _shown(value: str) -> str:
    return repr(value if len(value) <= _SHOWN else value[:_SHOWN] + "…")


def _bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def allowed_hosts(sockname: Any) -> frozenset[str]:
    """Every ``Host`` value that addresses the socket ``sockname`` (``(address, port, …)``)."""
    if not isinstance(sockname, tuple) or len(sockname) < 2:
        return frozenset()  # a Unix socket or no transport: no name is ours
    address, port = str(sockname[0]), int(sockname[1])
    names = LOOPBACK_NAMES | {_bracketed(address)}
    return frozenset(f"{name}:{port}" for name in names) | (names if port == 80 else frozenset())


@web.middleware
async def host_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    host = request.headers.get("Host")
    if host is None:
        raise bad_request("the request has no Host header")
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if host.lower() not in allowed_hosts(sockname):
        raise ApiError(
            421,
            f"this server does not answer to Host {_shown(host)}; address it as "
            f"127.0.0.1, localhost or [::1] with its port",
        )
    return await handler(request)


@web.middleware
async def path_id_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    for name, what in ID_PARAMS.items():
        value = request.match_info.get(name)
        if value is not None and not _ID.fullmatch(value):
            raise bad_request(f"{what} {_shown(value)} is not an id: 1 to 128 of A-Z a-z 0-9 _ . -")
    return await handler(request)
