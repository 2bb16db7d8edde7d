"""``agent-tui import``'s arguments: a JSONL export, or another agent's sessions (``--from``, ``import_foreign_cmd``)."""

from __future__ import annotations

import argparse

# core.transfer.foreign.formats.READERS, without importing it (tests/core/transfer/foreign/test_locate.py)
FOREIGN_AGENTS = ("claude", "codex", "gemini", "opencode")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    importing = sub.add_parser(
        "import",
        help="a new session (in this directory) from a JSONL export, or from another agent's sessions"
        f" (--from {'|'.join(FOREIGN_AGENTS)})",
    )
    importing.add_argument(
        "file", nargs="?", metavar="FILE.jsonl|PATH|SESSION-ID", help="the export; with --from a session file or id"
    )
    importing.add_argument(
        "--from", dest="source", choices=FOREIGN_AGENTS, help="another agent's sessions (default: this directory's)"
    )
    importing.add_argument("--all", action="store_true", help="with --from: every directory's sessions")
    importing.add_argument("--project", metavar="DIR", help="with --from: DIR's sessions, imported into DIR")
    importing.add_argument("--again", action="store_true", help="with --from: import sessions imported before again")
