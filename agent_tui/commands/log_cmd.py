"""``agent-tui log SESSION_ID``: one JSON object per durable event.

``{"seq", "type", "created", "data"}`` per line; ``--follow`` keeps printing
events committed later, by this or any other process, until interrupted.
"""

from __future__ import annotations

import argparse
import sys

from agent_tui.commands.errors import fail
from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import Sessions, Synced
from agent_tui.vocab.terminal_text import inert_json


def main(args: argparse.Namespace) -> int:
    if args.after is not None and args.after < 0:
        return fail(f"--after must be a seq >= 0, not {args.after}", 2)

    async def printing(sessions: Sessions) -> int:
        await sessions.get(args.session_id)
        async for item in sessions.log(args.session_id, after=args.after, follow=args.follow):
            if isinstance(item, Synced):
                continue
            sys.stdout.write(inert_json(item.to_json_line()) + "\n")  # DEL and C1 escaped too
            sys.stdout.flush()
        return 0

    try:
        return run_with_sessions(printing)
    except BrokenPipeError:  # `agent-tui log X | head`
        return 0
