"""``agent-tui rewind ID``'s arguments: the prompt to go back to (or ``--undo``) and what goes back."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rewind = sub.add_parser("rewind", help="rewind a session to before one of its prompts (no --to: list them)")
    rewind.add_argument("session_id")
    action = rewind.add_mutually_exclusive_group()
    action.add_argument("--to", metavar="MESSAGE_ID", help="the prompt to go back to (it and what followed are hidden)")
    action.add_argument("--undo", action="store_true", help="take the last rewind back, files included")
    what = rewind.add_mutually_exclusive_group()
    what.add_argument(
        "--both", dest="mode", action="store_const", const="both", help="conversation and files (default)"
    )
    what.add_argument("--conversation", dest="mode", action="store_const", const="conversation")
    what.add_argument("--files", dest="mode", action="store_const", const="files")
    rewind.set_defaults(mode="both")
    rewind.add_argument("--json", action="store_true", help="print the result as one JSON object")
