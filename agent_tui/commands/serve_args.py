"""``agent-tui serve``'s arguments: where the HTTP API listens."""

from __future__ import annotations

import argparse

from agent_tui.commands.launch_flags import add_trust_flags


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser("serve", help="serve the local HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=4096, help="port to listen on (0 picks a free one and prints it)")
    add_trust_flags(serve, default=argparse.SUPPRESS)
