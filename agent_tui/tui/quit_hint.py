"""What agent-tui prints once it has quit: the session, how to come back to it, what it cost.

Claude Code and Codex both leave this behind in the shell; without it, coming back to a session
meant opening the picker and finding it again, and its token use was only ever in the status bar
of a window that is gone. Printed after Textual has given the terminal back (``bootstrap``), read
from the session row while the store is still open. No Textual here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.session_title import session_title

if TYPE_CHECKING:
    from agent_tui.core.api import SessionRecord
    from agent_tui.tui.port import SessionsPort


def quit_hint(record: SessionRecord) -> str | None:
    """Two lines for a session that holds messages (None for one that does not: nothing to resume)."""
    if not record.message_count:
        return None
    title = session_title(record.title)
    usage = f"{record.input_tokens:,} input · {record.output_tokens:,} output tokens"
    if record.cost:
        usage += f" · ${record.cost:.4f}" if record.cost < 1 else f" · ${record.cost:.2f}"
    named = f"session {record.id}" + (f" ({title})" if title else "")
    return f"{named}: {usage}\nresume it: agent-tui -r {record.id}   (agent-tui -c: the latest session here)"


async def read_quit_hint(sessions: SessionsPort | None, session_id: str | None) -> str | None:
    """The hint for the session on screen at exit; None when there is none or the store cannot say
    (a quit never fails over its hint)."""
    if sessions is None or session_id is None:
        return None
    try:
        return quit_hint(await sessions.get(session_id))
    except Exception:  # noqa: BLE001 - a closing or unreadable store: leave without the hint
        return None
