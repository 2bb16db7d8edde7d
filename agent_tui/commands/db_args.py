"""``agent-tui db rebuild|copy``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("rebuild", help="rebuild every projection from the event table")
    copy = db_sub.add_parser(
        "copy", help="copy sessions between SQLite and PostgreSQL (resumable, idempotent, verified by checksums)"
    )
    copy.add_argument("source", metavar="SRC", help="a SQLite file, 'default' (this store) or a postgresql:// URL")
    copy.add_argument("destination", metavar="DST", help="a SQLite file, 'default' (this store) or a postgresql:// URL")
    copy.add_argument(
        "--session",
        action="append",
        default=[],
        metavar="ID",
        help="only this session (repeatable); forks bring their parent",
    )
    copy.add_argument("--batch", type=int, default=500, metavar="N", help="events per destination transaction (500)")
    copy.add_argument("--dry-run", action="store_true", help="say what would be copied; write nothing")
