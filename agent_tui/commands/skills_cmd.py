"""``agent-tui skills [DIR]``: the skills found for a directory, where each is from, and the bad SKILL.md files.

One line per skill (name, description, source and folder; ``denied`` when the
agent's ``skill`` rules hide it from the model), then one line per SKILL.md left
out, on stderr. ``--json`` prints one object per skill and per problem instead.
Everything shown comes from files, so it is made inert for the terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent_tui.commands.listing import settings_for, write_json
from agent_tui.vocab.terminal_text import inert


def main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import skill_listing

    settings = settings_for(args.directory)
    if isinstance(settings, int):
        return settings
    rows, problems = skill_listing(Path(args.directory), settings.permission_rules(args.agent or settings.agent))
    if args.json:
        return write_json(rows, problems)
    if not rows:
        sys.stdout.write("no skills (put SKILL.md folders in .agent-tui/skills/, .agents/skills/ or .claude/skills/)\n")
    for row in rows:
        mark = "  [denied]" if row.denied else ""
        sys.stdout.write(inert(f"{row.name}{mark}  {row.description}  ({row.where})") + "\n")
    sys.stderr.writelines(inert(f"agent-tui: skipped {line}") + "\n" for line in problems)
    return 0
