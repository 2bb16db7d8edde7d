"""``agent-tui context [ID]``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    context = sub.add_parser(
        "context", help="what the next request would hold: system prompt, instructions, tools, history (tokens)"
    )
    context.add_argument("session_id", nargs="?", help="the session (default: the latest in this directory)")
    context.add_argument("--json", action="store_true", help="print one JSON object")
