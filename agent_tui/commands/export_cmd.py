"""``agent-tui export SESSION [--format jsonl|markdown] [-o FILE]`` and ``agent-tui import FILE.jsonl``."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from agent_tui.commands.errors import fail
from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import Sessions
from agent_tui.vocab.terminal_text import inert, inert_json


def export(args: argparse.Namespace) -> int:
    async def command(sessions: Sessions) -> int:
        text = await sessions.transfer.export(args.session_id, args.format)
        if args.output in (None, "-"):
            sys.stdout.write(inert_json(text) if args.format == "jsonl" else inert(text))  # to a terminal
            return 0
        try:
            await asyncio.to_thread(Path(args.output).write_text, text, encoding="utf-8")
        except OSError as error:
            return fail(f"cannot write {args.output}: {error.strerror}")
        print(f"exported {args.session_id} to {args.output}", file=sys.stderr)
        return 0

    return run_with_sessions(command)


def import_(args: argparse.Namespace) -> int:
    if args.source is not None:
        from agent_tui.commands import import_foreign_cmd

        return import_foreign_cmd.main(args)
    if args.file is None or args.all or args.project or args.again:
        return fail("import FILE.jsonl takes no --all, --project or --again; those go with --from AGENT")
    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except OSError as error:
        return fail(f"cannot read {args.file}: {error.strerror}")
    except UnicodeDecodeError:
        return fail(f"{args.file} is not UTF-8 text; not an agent-tui export")

    async def command(sessions: Sessions) -> int:
        record = await sessions.transfer.import_session(text, location=Path.cwd(), source=args.file)
        print(record.id)
        return 0

    return run_with_sessions(command)


def main(args: argparse.Namespace) -> int:
    return import_(args) if args.command == "import" else export(args)
