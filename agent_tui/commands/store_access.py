"""Run a store-backed CLI command: open the facade, map failures to one line.

Shared by ``sessions``, ``log`` and ``db``: a bad config, a corrupt, locked
or newer database, an unknown session — each becomes ``agent-tui: <reason>``
on stderr and exit code 1 (6 when the configured database server cannot be
reached or its driver is missing); nothing is written on the way out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent_tui.commands.errors import fail
from agent_tui.core.api import ConfigError, DatabaseUnreachable, Sessions, StoreError, load_settings, open_sessions


def run_with_sessions(command: Callable[[Sessions], Awaitable[int]], location: Path | None = None) -> int:
    async def main() -> int:
        settings = await asyncio.to_thread(load_settings, location)
        sessions = await open_sessions(settings)
        try:
            return await command(sessions)
        finally:
            await sessions.close()

    try:
        return asyncio.run(main())
    except DatabaseUnreachable as error:
        return fail(str(error), error.exit_code)
    except (StoreError, ConfigError) as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return 130
