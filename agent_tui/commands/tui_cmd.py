"""``agent-tui`` (no subcommand): open the Textual app.

How it starts (first frame first, then the core a step at a time) is
``agent_tui.tui.bootstrap``; this maps the command line onto it and prints
its one-line failure.
"""

from __future__ import annotations

import argparse

from agent_tui.commands.errors import fail
from agent_tui.tui import bootstrap


def main(args: argparse.Namespace) -> int:
    launch = bootstrap.Launch(
        model=args.model,
        api_base=args.api_base,
        api_key=args.api_key,
        continue_latest=bool(args.continue_),
        resume=args.resume,
        trust=getattr(args, "trust", None),
        agent=getattr(args, "agent", None),
        approval=getattr(args, "approval", None),
        prompt=getattr(args, "prompt", None),
    )
    try:
        return bootstrap.run(launch)
    except bootstrap.LaunchFailed as error:
        return fail(str(error), error.code)
