"""``agent-tui db rebuild``: recreate every projection from the event table."""

from __future__ import annotations

import argparse

from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import Sessions


def main(args: argparse.Namespace) -> int:
    async def rebuild(sessions: Sessions) -> int:
        count = await sessions.rebuild()
        print(f"rebuilt projections from {count} events in {sessions.database}")
        return 0

    assert args.db_command == "rebuild"
    return run_with_sessions(rebuild)
