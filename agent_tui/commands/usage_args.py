"""``agent-tui usage``'s arguments: how to group the steps, which days, and the shape of the answer."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    usage = sub.add_parser("usage", help="tokens and cost across all sessions, by day, week, month, model, ...")
    usage.add_argument(
        "--by",
        choices=["day", "week", "month", "model", "agent", "project", "session"],
        default="day",
        help="how to group the steps (default: day; weeks start on Monday; times are local)",
    )
    usage.add_argument("--since", metavar="DATE", help="from this day on (YYYY-MM-DD)")
    usage.add_argument("--until", metavar="DATE", help="up to and including this day (YYYY-MM-DD)")
    shape = usage.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="one JSON object per group (cost null when unknown)")
    shape.add_argument("--chart", action="store_true", help="a terminal chart of tokens and cost over time")
