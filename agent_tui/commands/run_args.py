"""``agent-tui run``'s arguments: the prompt, the session to continue, the answer's format and
schema, and how asks are answered; its exit codes are the epilog of ``run --help`` (``run_exit``).

Only argparse and ``run_exit`` are imported here: ``cli.build_parser`` builds every subcommand's
parser on each launch argparse reads, and the command itself (``commands.run_cmd``) is imported
only once chosen.
"""

from __future__ import annotations

import argparse

from agent_tui.commands.launch_flags import (
    add_agent_flag,
    add_approval_flags,
    add_model_flags,
    add_permission_flag,
    add_trust_flags,
)
from agent_tui.commands.run_exit import HELP as RUN_EXIT_CODES


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help="run one prompt headless", epilog=RUN_EXIT_CODES)
    target = run.add_mutually_exclusive_group()
    target.add_argument("--session", help="continue this session")
    target.add_argument(
        "--continue", dest="continue_", action="store_true", help="continue the most recent session of this directory"
    )
    add_model_flags(run)
    add_agent_flag(run)
    add_trust_flags(run, default=argparse.SUPPRESS)
    add_approval_flags(run, default=argparse.SUPPRESS)
    run.add_argument("--delivery", choices=["steer", "queue"], default="steer")
    run.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text: the answer on stdout; json: one JSON object per line, every stored event and the live "
        "deltas (the schema: docs/run-events.schema.json)",
    )
    run.add_argument(
        "--output-schema",
        metavar="FILE",
        help="the final answer must match this JSON Schema: printed alone on stdout as one line of JSON "
        "(exit 3 when the model gives none, even after one repair prompt)",
    )
    add_permission_flag(run, stop="the run ends, exit 4")
    run.add_argument(
        "--file",
        action="append",
        metavar="PATH",
        help="attach a file, folder or image as an @mention would (repeatable)",
    )
    run.add_argument(
        "prompt",
        nargs="?",
        default=None,
        help="the prompt (@path attaches that file); - reads standard input; omitted with --session or "
        "--continue, the session resumes what it left (pending input, unfinished steps, tools a "
        "crash left running)",
    )
