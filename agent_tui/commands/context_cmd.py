"""``agent-tui context [SESSION] [--json]``: what the next request would hold, part by part.

No SESSION: the latest session in this directory; no session here at all: what
a first request would hold. A table by default (estimated tokens, shares of the
context window), ``--json`` for one machine-readable object. An unknown id is
one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import ContextBreakdown, Sessions
from agent_tui.vocab.terminal_text import inert, inert_json


def table(breakdown: ContextBreakdown) -> str:
    """The breakdown as aligned lines, a heading first."""
    who = f"Next request of {breakdown.session_id}" if breakdown.session_id else "First request here (no session yet)"
    lines = [f"{who}: {breakdown.model or 'no model set'} · agent {breakdown.agent}", ""]
    rows = breakdown.rows()
    width = max(len(label) for label, _, _ in rows)
    for label, tokens, share in rows:
        amount = "unknown" if tokens is None else f"{tokens:,}"
        lines.append(f"{label:<{width}}  {amount:>11}  {share:>6}".rstrip())
    lines += ["", f"Tokens are estimated ({breakdown.estimate})."]
    return "\n".join(lines) + "\n"


def main(args: argparse.Namespace) -> int:
    async def show(sessions: Sessions) -> int:
        here = Path.cwd()
        session_id = args.session_id
        if session_id is None:
            latest = await sessions.latest(here)
            session_id = latest.id if latest is not None else None
        breakdown = await sessions.context_breakdown(session_id, location=here)
        if args.json:
            sys.stdout.write(inert_json(breakdown.model_dump_json()) + "\n")
        else:
            sys.stdout.write(inert(table(breakdown)))
        return 0

    try:
        return run_with_sessions(show)
    except BrokenPipeError:  # `agent-tui context | head`
        return 0
