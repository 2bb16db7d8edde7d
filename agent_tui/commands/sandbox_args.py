"""``agent-tui sandbox [--agent NAME] -- CMD…``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sandbox = sub.add_parser(
        "sandbox",
        help="run a command under the sandbox policy the agent's bash has here (to check what it allows)",
    )
    sandbox.add_argument("--agent", help="use this agent's policy (the plan agent's is read-only)")
    sandbox.add_argument("words", nargs=argparse.REMAINDER, metavar="-- CMD", help="the command and its arguments")
