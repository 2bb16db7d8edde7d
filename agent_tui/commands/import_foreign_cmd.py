"""``agent-tui import --from claude|codex|gemini|opencode [PATH|SESSION-ID|--all] [--project DIR] [--again]``.

Without PATH or SESSION-ID: every session the agent kept for this directory
(``--project DIR``: for DIR); ``--all``: for every directory, each into its own.
Each file is read whole before anything is written, so a file this build
cannot read is one line on stderr and imports nothing; the others go on (exit
code 1 at the end). Standard output gets each session's agent-tui id (new or
found); standard error the report: per session what was mapped and every note,
then the totals.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from pathlib import Path

from agent_tui.commands.errors import fail
from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import (
    FOREIGN_FORMATS,
    Sessions,
    UnreadableSession,
    foreign_session_by_id,
    foreign_sessions,
    load_foreign_session,
)
from agent_tui.vocab.terminal_text import inert


def _files(args: argparse.Namespace, project: Path | None) -> list[Path]:
    home = Path.home()
    target = args.file
    if target is not None and args.all:
        raise UnreadableSession("give PATH or SESSION-ID, or --all, not both")
    if target is not None:
        path = Path(target).expanduser()
        return [path] if path.exists() or "/" in target else [foreign_session_by_id(args.source, target, home)]
    where = None if args.all else (project or Path.cwd().resolve())
    found = foreign_sessions(args.source, where, home)
    if not found:
        scope = "any directory" if where is None else str(where)
        raise UnreadableSession(f"no {FOREIGN_FORMATS[args.source]} sessions for {scope} under {home}")
    return found


def main(args: argparse.Namespace) -> int:
    project = Path(args.project).expanduser().resolve() if args.project else None
    if project is not None and not project.is_dir():
        return fail(f"--project {args.project}: not a directory")
    try:
        files = _files(args, project)
    except UnreadableSession as error:
        return fail(str(error))

    async def command(sessions: Sessions) -> int:
        made, found, failed = 0, 0, 0
        totals: Counter[str] = Counter()
        notes = 0
        for path in files:
            try:
                text = await asyncio.to_thread(load_foreign_session, args.source, path)
                outcome = await sessions.transfer.import_foreign(
                    args.source, text, path=str(path), location=project, again=args.again
                )
            except (OSError, UnicodeDecodeError) as error:
                failed += 1
                fail(f"cannot read {path}: {getattr(error, 'strerror', None) or error}")
                continue
            except UnreadableSession as error:
                failed += 1
                fail(str(error))
                continue
            imported = outcome.imported
            print(outcome.session_id)
            if not outcome.created:
                found += 1
                print(
                    f"skipped {imported.source_id}: imported before as {outcome.session_id} (--again imports it again)",
                    file=sys.stderr,
                )
                continue
            made += 1
            totals += imported.mapped
            notes += len(imported.notes)
            mapped = ", ".join(f"{n} {kind}" for kind, n in sorted(imported.mapped.items()))
            print(f"imported {imported.source_id} as {outcome.session_id}: {mapped}", file=sys.stderr)
            for note in imported.notes:
                print(f"  note: {inert(note)}", file=sys.stderr)
        summary = ", ".join(f"{n} {kind}" for kind, n in sorted(totals.items())) or "nothing"
        label = FOREIGN_FORMATS[args.source]
        print(
            f"{label}: {made} imported, {found} skipped (imported before), {failed} unreadable;"
            f" mapped {summary}; {notes} notes for what was not",
            file=sys.stderr,
        )
        return 1 if failed else 0

    return run_with_sessions(command)
