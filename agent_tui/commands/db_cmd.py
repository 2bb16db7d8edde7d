"""``agent-tui db``: ``rebuild`` recreates every projection from the event table; ``copy`` moves
sessions between SQLite and PostgreSQL and says what it copied, skipped and verified."""

from __future__ import annotations

import argparse
import asyncio

from agent_tui.commands.errors import fail
from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import ConfigError, CopyReport, Sessions, StoreError, copy_log, load_settings


def main(args: argparse.Namespace) -> int:
    match args.db_command:
        case "rebuild":
            return run_with_sessions(_rebuild)
        case "copy":
            return _copy(args)
    raise AssertionError(args.db_command)


async def _rebuild(sessions: Sessions) -> int:
    count = await sessions.rebuild()
    print(f"rebuilt projections from {count} events in {sessions.database}")
    return 0


def _copy(args: argparse.Namespace) -> int:
    if args.batch < 1:
        return fail(f"--batch must be at least 1, not {args.batch}")

    async def copy() -> CopyReport:
        settings = await asyncio.to_thread(load_settings, None)
        return await copy_log(
            args.source,
            args.destination,
            session_ids=args.session,
            batch=args.batch,
            dry_run=args.dry_run,
            storage=settings.storage,
        )

    try:
        report = asyncio.run(copy())
    except (StoreError, ConfigError) as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return 130
    print(describe(report))
    if problems := report.problems:
        return fail(f"{len(problems)} of {len(report.sessions)} sessions were not copied: " + str(problems[0].problem))
    return 0


def describe(report: CopyReport) -> str:
    """One line per session copied, resumed or refused, then the totals; sessions already there only count."""
    lines = [f"{'would copy' if report.dry_run else 'copy'} {report.source} -> {report.destination}"]
    for s in report.sessions:
        match s.state:
            case "copied" | "resumed" | "would copy":
                lines.append(f"  {s.session_id}  {s.state} {s.copied} of {s.events} events")
            case "conflict" | "mismatch":
                lines.append(f"  {s.session_id}  {s.state.upper()}: {s.problem}")
    if report.parents_added:
        lines.append(f"  with the parents of forks: {', '.join(report.parents_added)}")
    total = len(report.sessions)
    if report.dry_run:
        lines.append(
            f"{report.count('would copy')} of {total} sessions to copy ({report.events_copied} events),"
            f" {report.count('present')} already there; nothing written"
        )
    else:
        lines.append(
            f"copied {report.count('copied')} sessions, resumed {report.count('resumed')}"
            f" ({report.events_copied} events); {report.count('present')} already there;"
            f" verified {report.verified} of {total} (event counts and checksums equal)"
        )
    return "\n".join(lines)
