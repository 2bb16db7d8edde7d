"""``agent-tui sessions list|fork|rename|delete``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sessions = sub.add_parser("sessions", help="list, fork, rename and delete sessions")
    sessions_sub = sessions.add_subparsers(dest="sessions_command", required=True)
    listing = sessions_sub.add_parser("list", help="list sessions, newest first")
    listing.add_argument("--all", action="store_true", help="every location, not only this one")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.add_argument("--search", help="full-text search over titles and messages")
    listing.add_argument("--limit", type=int, default=50)
    forking = sessions_sub.add_parser("fork", help="a new session with this one's history (prints its id)")
    forking.add_argument("session_id")
    forking.add_argument("--at", metavar="MESSAGE_ID", help="fork from just before this prompt (default: all of it)")
    renaming = sessions_sub.add_parser("rename", help="give a session a new title")
    renaming.add_argument("session_id")
    renaming.add_argument("title")
    deleting = sessions_sub.add_parser("delete", help="delete a session: its events, rows and snapshots, for good")
    deleting.add_argument("session_id")
    deleting.add_argument("--yes", action="store_true", help="do not ask (needed when standard input is no terminal)")
