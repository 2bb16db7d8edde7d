"""The app's flags, given with no subcommand: the session to open (``-c``, ``-r [ID]``), the model,
the agent, trust and approval.

Only argparse is imported here: ``cli.build_parser`` adds these on each launch argparse reads, and
the app itself (``commands.tui_cmd``, Textual) is imported only once chosen.
"""

from __future__ import annotations

import argparse

from agent_tui.commands.launch_flags import add_agent_flag, add_approval_flags, add_model_flags, add_trust_flags


def add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="open the most recent session of this directory",
    )
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="open the session picker, or the session ID",
    )
    add_model_flags(parser)
    add_agent_flag(parser)
    add_trust_flags(parser)
    add_approval_flags(parser)
