"""``agent-tui skills [DIR]``'s arguments."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    skills = sub.add_parser("skills", help="list the skills found for a directory (SKILL.md folders)")
    skills.add_argument("directory", nargs="?", default=".", help="a directory of the project (default: here)")
    skills.add_argument("--agent", help="mark the skills this agent's rules deny (default: the configured agent)")
    skills.add_argument("--json", action="store_true", help="one JSON object per skill, then one per problem")
