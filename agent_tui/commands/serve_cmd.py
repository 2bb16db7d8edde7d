"""``agent-tui serve``: the local HTTP API over the Sessions facade.

Binds 127.0.0.1 by default (a warning is printed for any other address),
prints the URL and the token once on stderr, writes both to
``<data dir>/server.json`` (mode 0600) for local clients, and runs sessions in
this process. SIGINT/SIGTERM interrupt running sessions with reason
``shutdown``, close open streams and exit 0.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import signal
import socket
import sys
from typing import Any

from agent_tui.commands.errors import fail


def main(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _say(line: str) -> None:
    print(f"agent-tui: {line}", file=sys.stderr, flush=True)


async def _main(args: argparse.Namespace) -> int:
    from agent_tui.core.config import ConfigError
    from agent_tui.core.db import StoreError
    from agent_tui.core.runtime import Runtime

    if not 0 <= args.port <= 65535:
        return fail(f"--port must be between 0 and 65535, not {args.port}")
    cli = {"model": getattr(args, "model", None), "api_base": getattr(args, "api_base", None),
           "api_key": getattr(args, "api_key", None)}  # fmt: skip
    try:
        runtime = await Runtime.open(cli=cli, permission_policy=None)
    except (ConfigError, StoreError) as error:
        return fail(str(error))
    try:
        return await _serve(args, runtime)
    finally:
        await runtime.close()


async def _serve(args: argparse.Namespace, runtime: Any) -> int:
    from aiohttp import web

    from agent_tui.server.app import build_app
    from agent_tui.server.auth import TOKEN_ENV, remove_server_file, resolve_token, write_server_file

    token, from_env = resolve_token()
    app = build_app(runtime.sessions, token, settings_for=runtime.settings_for)
    try:
        sock = await asyncio.to_thread(_listen, args.host, args.port)
    except OSError as error:
        return fail(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=5, access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{port}"
    path = await asyncio.to_thread(write_server_file, {"url": url, "host": args.host, "port": port,
                                                       "token": token, "pid": os.getpid()})  # fmt: skip
    if not is_loopback(args.host):
        _say(f"WARNING: listening on {args.host}, reachable from other machines; anyone with the token "
             "can run commands here")
    _say(f"serving {url} (port {port})")
    _say(f"token from {TOKEN_ENV}" if from_env else f"token {token}")
    _say(f"url and token written to {path}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
        _say("shutting down")
        await runtime.coordinator.shutdown()  # interrupt running sessions with reason "shutdown"
        await runner.cleanup()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        await asyncio.to_thread(remove_server_file, token, path)
    return 0


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket; port 0 picks a free port (printed on stderr)."""
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    return socket.create_server(address, family=family)
