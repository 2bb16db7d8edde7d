"""One process's connection with a stored OAuth login: ``python oauth_connect.py STORE_DIR NAME URL``.

Loads the login (``connection_auth``), prints ``loaded`` and waits for a line on stdin, then
connects once (refreshing when due) and prints ``connected`` or the failure. Two of these show
what two agent-tui processes do with one login at the same moment."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agent_tui.tools.mcp.oauth import _connect_once, connection_auth
from agent_tui.tools.mcp.token_store import FileTokenStore
from agent_tui.vocab.mcp_server import McpServerConfig


async def main(store_dir: str, name: str, url: str) -> int:
    config = McpServerConfig(url=url)
    auth = connection_auth(name, config, FileTokenStore(Path(store_dir)))
    print("loaded", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    try:
        await _connect_once(config, auth)
    except BaseException as error:  # noqa: BLE001 - the test reads what happened
        print(f"failed: {type(error).__name__}: {error}", flush=True)
        return 1
    print("connected", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(*sys.argv[1:4])))
