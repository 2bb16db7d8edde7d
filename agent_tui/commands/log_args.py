"""``agent-tui log ID``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    log = sub.add_parser("log", help="print a session's durable events as JSON lines")
    log.add_argument("session_id")
    log.add_argument("--after", type=int, default=None, help="only events after this seq")
    log.add_argument("--follow", action="store_true", help="keep printing new events")
