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
from pathlib import Path
from typing import Any

from agent_tui.commands import trust_cmd
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


# SIGHUP too: a server started in a terminal that closes must not leave its runs' tools behind.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _say(line: str) -> None:
    try:
        print(f"agent-tui: {line}", file=sys.stderr, flush=True)
    except OSError:  # the terminal is gone (SIGHUP): serving and shutting down go on without it
        pass


async def _main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import ConfigError, DatabaseUnreachable, Runtime, StoreError

    if not 0 <= args.port <= 65535:
        return fail(f"--port must be between 0 and 65535, not {args.port}")
    cli = {
        "model": getattr(args, "model", None),
        "api_base": getattr(args, "api_base", None),
        "api_key": getattr(args, "api_key", None),
    }
    trust_cmd.apply(args)
    try:
        runtime = await Runtime.open(cli=cli, permission_policy=None)
    except DatabaseUnreachable as error:
        return fail(str(error), error.exit_code)
    except (ConfigError, StoreError) as error:
        return fail(str(error))
    here = await runtime.settings_for(str(Path.cwd()))
    if here.untrusted_project is not None:
        _say(trust_cmd.ignored_line(here.untrusted_project))
    if (unconfined := here.sandbox.notice()) is not None:
        _say(unconfined)
    try:
        return await _serve(args, runtime)
    finally:
        await runtime.close()


async def _serve(args: argparse.Namespace, runtime: Any) -> int:
    from aiohttp import web

    from agent_tui.server.app import build_app
    from agent_tui.server.auth import resolve_token

    token, from_env = resolve_token()
    try:
        sock = await asyncio.to_thread(_listen, args.host, args.port)
    except OSError as error:
        return fail(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    caught = [signum for signum in STOP_SIGNALS if signal.getsignal(signum) is not signal.SIG_IGN]
    for signum in caught:  # what the caller ignores (nohup, a script's &) stays ignored
        loop.add_signal_handler(signum, stop.set)
    app = build_app(runtime.sessions, token, settings_for=runtime.settings_for, mcp_status=runtime.mcp_status)
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=5, access_log=None)
    try:
        await runner.setup()
        await web.SockSite(runner, sock).start()
        return await _announce_and_wait(args.host, sock.getsockname()[1], token, from_env, stop, runtime)
    finally:
        await runner.cleanup()
        for signum in caught:
            loop.remove_signal_handler(signum)


async def _announce_and_wait(
    host: str, port: int, token: str, from_env: bool, stop: asyncio.Event, runtime: Any
) -> int:
    """Tell the user (and local clients) where we are, serve until a signal, interrupt the runs."""
    from agent_tui.server.auth import TOKEN_ENV, remove_server_file, write_server_file

    url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    info = {"url": url, "host": host, "port": port, "token": token, "pid": os.getpid()}
    try:
        path = await asyncio.to_thread(write_server_file, info)
    except OSError as error:
        return fail(f"cannot write {error.filename or 'server.json'}: {error.strerror or error}")
    try:
        if not is_loopback(host):
            _say(
                f"WARNING: listening on {host}, reachable from other machines; anyone with the token "
                "can run commands here"
            )
        _say(f"serving {url} (port {port})")
        _say(f"token from {TOKEN_ENV}" if from_env else f"token {token}")
        _say(f"url and token written to {path}")
        await stop.wait()
        _say("shutting down")
        await runtime.sessions.shutdown()  # interrupt running sessions with reason "shutdown"
    finally:
        await asyncio.to_thread(remove_server_file, token, path)
    return 0


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket; port 0 picks a free port (printed on stderr)."""
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    return socket.create_server(address, family=family)
