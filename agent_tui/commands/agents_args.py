"""``agent-tui agents [DIR]``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    agents = sub.add_parser("agents", help="list the agents: built in, from config files and from Markdown files")
    agents.add_argument("directory", nargs="?", default=".", help="a directory of the project (default: here)")
    agents.add_argument("--json", action="store_true", help="one JSON object per agent, then one per problem")
