"""``agent-tui sessions list|fork|rename|delete``: sessions newest first (this directory by default);
fork, rename or delete one. A delete asks first (``--yes`` skips the question)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from agent_tui.commands.errors import fail
from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import SessionOwnedElsewhere, Sessions, SessionSummary
from agent_tui.humanize import relative_time
from agent_tui.vocab.terminal_text import inert, inert_json


def row(summary: SessionSummary, now_ms: int) -> str:
    title = summary.title or "(untitled)"
    return f"{summary.id}  {relative_time(summary.updated, now_ms):>9}  {summary.message_count:>4} msgs  {title}  [{summary.location}]"


def main(args: argparse.Namespace) -> int:
    match args.sessions_command:
        case "fork":
            return fork(args)
        case "rename":
            return rename(args)
        case "delete":
            return delete(args)
    return listing(args)


def rename(args: argparse.Namespace) -> int:
    async def command(sessions: Sessions) -> int:
        record = await sessions.rename(args.session_id, args.title)
        sys.stdout.write(inert(f"{record.id}  {record.title}") + "\n")
        return 0

    return run_with_sessions(command)


def delete(args: argparse.Namespace) -> int:
    if not args.yes:
        if not sys.stdin.isatty():
            return fail(f"deleting {args.session_id} removes its log and snapshots for good; add --yes to confirm")
        answer = input(f"delete session {args.session_id} and its snapshots for good? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            return fail("not deleted")

    async def command(sessions: Sessions) -> int:
        try:
            count = await sessions.delete(args.session_id)
        except SessionOwnedElsewhere as error:
            return fail(str(error))
        sys.stdout.write(f"deleted {args.session_id} ({count} events)\n")
        return 0

    return run_with_sessions(command)


def fork(args: argparse.Namespace) -> int:
    async def command(sessions: Sessions) -> int:
        try:
            child = await sessions.fork(args.session_id, at=args.at)
        except SessionOwnedElsewhere as error:
            return fail(str(error))
        sys.stdout.write(f"{child.id}\n")
        return 0

    return run_with_sessions(command)


def listing(args: argparse.Namespace) -> int:
    if args.limit < 1:
        return fail(f"--limit must be at least 1, not {args.limit}", 2)
    location = None if args.all else str(Path.cwd().resolve())

    async def rows(sessions: Sessions) -> int:
        found = await sessions.list(location=location, search=args.search, limit=args.limit)
        now = time.time_ns() // 1_000_000
        # a title is whatever a prompt or a rename said: never a control sequence on the terminal
        lines = [inert_json(s.model_dump_json()) if args.json else inert(row(s, now)) for s in found]
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
        return 0

    return run_with_sessions(rows)
