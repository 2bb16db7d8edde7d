"""``agent-tui mcp serve``: agent-tui's sessions as MCP tools on stdin/stdout (``mcp_serve``).

Opens the runtime as ``run`` does (the launch's ``--permission`` allow, deny or stop answers the asks a
client cannot; the default is deny), serves until the client closes stdin, then
interrupts what still runs (reason ``shutdown``). Lines for a person go to stderr: stdout
carries the protocol.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from agent_tui.commands import trust_cmd
from agent_tui.commands.errors import fail


def main(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))


def _say(line: str) -> None:
    print(f"agent-tui: {line}", file=sys.stderr, flush=True)


async def _main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import ConfigError, Runtime, StoreError
    from agent_tui.mcp_serve.server import build_server
    from agent_tui.mcp_serve.session_tools import SessionTools

    cli = {"model": args.model, "api_base": args.api_base, "api_key": args.api_key}
    trust_cmd.apply(args)
    try:
        runtime = await Runtime.open(cli=cli, permission_policy=args.permission)
    except (ConfigError, StoreError) as error:
        return fail(str(error))
    try:
        here = await runtime.settings_for(str(Path.cwd()))
        if here.untrusted_project is not None:
            _say(trust_cmd.ignored_line(here.untrusted_project))
        if (unconfined := here.sandbox.notice()) is not None:
            _say(unconfined)
        server = build_server(SessionTools(runtime.sessions, Path.cwd()))
        await server.run_stdio_async()
        return 0
    finally:
        await runtime.sessions.shutdown()
        await runtime.close()
