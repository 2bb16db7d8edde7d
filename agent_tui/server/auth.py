"""Bearer-token auth and the ``server.json`` discovery file.

Every request needs ``Authorization: Bearer <token>``. The token comes from
``AGENT_TUI_SERVER_TOKEN`` or is generated at start; it is written with the
URL to ``<data dir>/server.json`` (mode 0600) so local clients can find it,
and compared in constant time.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aiohttp import web

from agent_tui.core.api import paths
from agent_tui.server.errors import ApiError
from agent_tui.server.table import is_public

TOKEN_ENV = "AGENT_TUI_SERVER_TOKEN"
SERVER_FILE = "server.json"


def resolve_token(environ: Mapping[str, str] | None = None) -> tuple[str, bool]:
    """``(token, from_environment)``; a fresh random token unless the variable is set."""
    value = (os.environ if environ is None else environ).get(TOKEN_ENV, "").strip()
    if value:
        return value, True
    return secrets.token_urlsafe(32), False


def bearer_middleware(token: str) -> Any:
    expected = token.encode()

    @web.middleware
    async def check(request: web.Request, handler: Any) -> web.StreamResponse:
        if is_public(request):
            return await handler(request)
        header = request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if not header:
            raise ApiError(401, "missing bearer token: send Authorization: Bearer <token>")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected):
            raise ApiError(401, "invalid bearer token")
        return await handler(request)

    return check


def server_file() -> Path:
    return paths.data_dir() / SERVER_FILE


def write_server_file(info: dict[str, Any], path: Path | None = None) -> Path:
    """Atomically write the discovery file, readable by its owner only (blocking: call in a thread)."""
    target = path or server_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, json.dumps(info, indent=2).encode() + b"\n")
    finally:
        os.close(fd)
    os.replace(temp, target)
    return target


def remove_server_file(token: str, path: Path | None = None) -> None:
    """Remove the file only if it still describes this server (another may have replaced it)."""
    target = path or server_file()
    try:
        current = json.loads(target.read_text())
    except (OSError, ValueError):
        return
    if isinstance(current, dict) and current.get("pid") == os.getpid() and current.get("token") == token:
        target.unlink(missing_ok=True)
