"""``agent-tui trust add|list|revoke [DIR]``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    trusting = sub.add_parser("trust", help="trust a project's own config, list trusted projects, or revoke trust")
    trusting.add_argument(
        "trust_command",
        choices=["add", "list", "revoke"],
        help="add: trust the config of DIR's project (shows what it grants); list: the trusted "
        "projects; revoke: stop trusting DIR's project",
    )
    trusting.add_argument("directory", nargs="?", default=".", help="a directory of the project (default: here)")
