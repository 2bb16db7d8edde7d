"""``agent-tui export ID``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    exporting = sub.add_parser("export", help="print a session as JSONL records (reference 002) or Markdown")
    exporting.add_argument("session_id")
    exporting.add_argument("--format", choices=["jsonl", "markdown"], default="jsonl")
    exporting.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
