"""``agent-tui permissions list|revoke``: the approvals an "always" answer saved for a project.

An "always" is saved per project (``core`` keeps it in the store); this is where the user sees what
they have allowed and takes it back. A revocation is durable (it survives ``db rebuild``); what it
allowed is asked again from the next permission check.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from agent_tui.commands.errors import fail
from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import ApprovalRecord, Sessions
from agent_tui.vocab.approval_words import describe_approval
from agent_tui.vocab.terminal_text import inert


def _line(approval: ApprovalRecord) -> str:
    saved = datetime.fromtimestamp(approval.created / 1000).strftime("%Y-%m-%d %H:%M")
    return inert(
        f"{approval.action:<20} {approval.pattern:<40} {saved}  ({describe_approval(approval.action, approval.pattern)})"
    )


def main(args: argparse.Namespace) -> int:
    directory = Path(args.project)
    if not directory.is_dir():
        return fail(f"{directory}: not a directory")
    if args.permissions_command == "list":
        if args.action or args.pattern or args.all:
            return fail("permissions list takes no ACTION, PATTERN or --all")
        return run_with_sessions(lambda sessions: _list(sessions, directory, as_json=args.json), directory)
    if args.all == bool(args.action):
        return fail("permissions revoke needs ACTION PATTERN, or --all")
    if args.action and not args.pattern:
        return fail("permissions revoke needs the PATTERN too, as `agent-tui permissions list` shows it")
    return run_with_sessions(lambda sessions: _revoke(sessions, directory, args.action, args.pattern), directory)


async def _list(sessions: Sessions, directory: Path, *, as_json: bool) -> int:
    saved = await sessions.permissions.approvals(directory)
    if as_json:
        sys.stdout.writelines(
            json.dumps({"action": a.action, "pattern": a.pattern, "created_ms": a.created, "project": a.project_root})
            + "\n"
            for a in saved
        )
        return 0
    if not saved:
        sys.stdout.write(inert(f"no saved approvals for {directory.resolve()}") + "\n")
        return 0
    sys.stdout.write(inert(f"saved approvals for {saved[0].project_root}:") + "\n")
    sys.stdout.writelines(_line(a) + "\n" for a in saved)
    return 0


async def _revoke(sessions: Sessions, directory: Path, action: str | None, pattern: str | None) -> int:
    revoked = await sessions.permissions.revoke_approvals(directory, action, pattern)
    if not revoked:
        what = "saved approvals" if action is None else f"saved approval {action} {pattern!r}"
        return fail(inert(f"no {what} for {directory.resolve()} (see agent-tui permissions list)"))
    sys.stdout.writelines(inert(f"revoked: {a.action} {a.pattern}") + "\n" for a in revoked)
    return 0
