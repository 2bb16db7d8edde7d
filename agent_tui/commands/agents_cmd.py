"""``agent-tui agents [DIR]``: the agents for a directory: built in, from config files and from Markdown files.

One line per agent (name, mode, description, and where it is defined last; ``*``
marks the default agent), then one line per agent file left out, on stderr.
``--json`` prints one object per agent (``sources`` lists every place that
defines it, lowest precedence first) and one per problem instead. Descriptions
come from files, so everything shown is made inert for the terminal.
"""

from __future__ import annotations

import argparse
import sys

from agent_tui.commands.listing import settings_for, write_json
from agent_tui.vocab.terminal_text import inert


def main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import agent_listing

    settings = settings_for(args.directory)
    if isinstance(settings, int):
        return settings
    rows = agent_listing(settings)
    if args.json:
        return write_json(rows, settings.problems)
    width = max(len(row.name) for row in rows) + 2
    for row in rows:
        mark = "*" if row.default else " "
        line = f"{mark} {row.name:<{width}}{row.mode:<10}{row.description}  ({row.source})"
        sys.stdout.write(inert(line) + "\n")
    sys.stderr.writelines(inert(f"agent-tui: skipped {line}") + "\n" for line in settings.problems)
    return 0
