"""``agent-tui permissions list|revoke``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    permissions = sub.add_parser("permissions", help='the approvals saved by answering "always": list or revoke')
    permissions.add_argument(
        "permissions_command",
        choices=["list", "revoke"],
        help="list: this project's saved approvals; revoke: stop allowing one (ACTION PATTERN) or, with --all, every one",
    )
    permissions.add_argument("action", nargs="?", help="revoke: the action (bash, edit, mcp, ...)")
    permissions.add_argument("pattern", nargs="?", help="revoke: the pattern as listed (quote it)")
    permissions.add_argument("--all", action="store_true", help="revoke: every saved approval of the project")
    permissions.add_argument("--project", metavar="DIR", default=".", help="a directory of the project (default: here)")
    permissions.add_argument("--json", action="store_true", help="list: one JSON object per approval")
