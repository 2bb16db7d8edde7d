"""``agent-tui warm status|start|stop``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    warm = sub.add_parser("warm", help="the warm process that makes launches start fast")
    warm.add_argument(
        "warm_command",
        choices=["status", "start", "stop"],
        help="status: show it (pid, version, idle time, RSS); start: start one and wait for it; "
        "stop: end it (running launches finish)",
    )
    warm.add_argument("--json", action="store_true", help="status as one JSON object per warm process")
