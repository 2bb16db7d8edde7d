"""``agent-tui rewind SESSION``: list the prompts, rewind to one, or undo the last rewind.

Every refusal (unknown session or message, a message of another session, a
session running here or in another process, a missing snapshot, a files
rewind over calls that changed files with no snapshot) is one line on stderr
and exit code 1, with nothing changed. A rewind that leaves some calls'
changes in place says which and why (its ``note``), never "no file changed".
"""

from __future__ import annotations

import argparse
import sys

from agent_tui.commands.errors import fail
from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import RewindResult, SessionOwnedElsewhere, Sessions


def describe(result: RewindResult) -> list[str]:
    if result.mode is None:
        lines = [f"undid the last rewind of session {result.session_id}"]
    else:
        lines = [f"rewound session {result.session_id} to just before {result.message_id} ({result.mode.value})"]
    if result.changed:
        lines.append(f"changed {len(result.changed)} file{'s' if len(result.changed) != 1 else ''}:")
        lines.extend(f"  {c.change:<9} {c.path}" for c in result.changed)
    elif (result.mode is None or result.mode.value != "conversation") and not result.unrestorable:
        lines.append("no file changed")
    if result.note:
        lines.append(result.note)
    if result.prompt is not None:
        lines.append(f"prompt: {result.prompt}")
    return lines


def main(args: argparse.Namespace) -> int:
    async def command(sessions: Sessions) -> int:
        try:
            if args.undo:
                result = await sessions.undo_rewind(args.session_id)
            elif args.to is None:
                for point in await sessions.rewind_points(args.session_id):
                    sys.stdout.write(f"{point.message_id}  {point.text.splitlines()[0] if point.text else ''}\n")
                return 0
            else:
                result = await sessions.rewind(args.session_id, args.to, args.mode)
        except SessionOwnedElsewhere as error:
            return fail(str(error))
        sys.stdout.write((result.model_dump_json() if args.json else "\n".join(describe(result))) + "\n")
        return 0

    return run_with_sessions(command)
