"""``tests/fakes/mcp_oauth.py`` as a real process on a free port, and what a test asks of it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

SCRIPT = Path(__file__).resolve().parent / "mcp_oauth.py"


@dataclass(frozen=True)
class OAuthServer:
    port: int
    transport: str = "http"

    @property
    def url(self) -> str:
        """The MCP endpoint (a streamable HTTP, or SSE, server that wants a bearer token)."""
        return f"http://127.0.0.1:{self.port}/{'sse' if self.transport == 'sse' else 'mcp'}"

    def stats(self) -> dict[str, Any]:
        """Grants issued by kind, refused refreshes, and the bearer tokens the MCP server saw."""
        return httpx.get(f"http://127.0.0.1:{self.port}/fake/stats", timeout=10).json()

    def revoke(self) -> None:
        """Forget every refresh token: the next refresh fails."""
        httpx.post(f"http://127.0.0.1:{self.port}/fake/revoke", timeout=10).raise_for_status()

    def revoke_access(self) -> None:
        """Forget every access token before its expiry: the next request with one gets 401."""
        httpx.post(f"http://127.0.0.1:{self.port}/fake/revoke-access", timeout=10).raise_for_status()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def oauth_server(ttl_s: int = 3600, bearer: str = "", transport: str = "http") -> Iterator[OAuthServer]:
    """The server on a free port, once it accepts connections; ``ttl_s``: how long its access
    tokens live; ``bearer``: a static token it also accepts; ``transport``: ``http`` or ``sse``."""
    port = _free_port()
    env = {**os.environ, "FAKE_OAUTH_TTL": str(ttl_s), "FAKE_MCP_BEARER": bearer}
    process = subprocess.Popen([sys.executable, str(SCRIPT), str(port), transport], env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the fake OAuth server did not start") from None
                time.sleep(0.05)
        yield OAuthServer(port, transport)
    finally:
        process.terminate()
        process.wait(10)


def follow(url: str) -> httpx.Response:
    """The user's browser: open the authorization URL and follow its redirect back to agent-tui's listener."""
    return httpx.get(url, follow_redirects=True, timeout=30)
