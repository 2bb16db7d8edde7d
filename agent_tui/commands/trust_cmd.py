"""``agent-tui trust add|list|revoke [DIR]``: which projects' own config may use its powers.

A project's ``.agent-tui/config.toml`` may allow commands, start MCP servers
and choose where model requests go only once the user trusts it
(``core.trust``). ``add`` shows what the config grants before recording it;
the record is the user's own (in the data dir), pinned to what it granted, so
a change to those parts needs trusting again. ``--trust`` / ``--no-trust``
on the TUI, ``run`` and ``serve`` decide for one launch only (:func:`apply`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent_tui.commands.errors import fail
from agent_tui.vocab.terminal_text import inert


def apply(args: argparse.Namespace) -> None:
    """Take ``--trust`` / ``--no-trust`` for this process."""
    from agent_tui.core.api import trust

    trust.assume(getattr(args, "trust", None))


def ignored_line(untrusted: Any) -> str:
    """One line: what an untrusted project's config asked for and did not get (inert: the
    project wrote those commands and URLs)."""
    return inert(
        f"{untrusted.config} is not trusted, so it may not: {'; '.join(untrusted.powers.lines)} "
        f"(agent-tui trust add, or --trust for one launch)"
    )


def main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import ConfigError, read_layers, trust

    if args.trust_command == "list":
        for entry in trust.trusted_projects():
            sys.stdout.write(inert(f"{entry.config}") + "\n")
            sys.stdout.writelines(inert(f"  {line}") + "\n" for line in entry.powers)
        return 0
    directory = Path(args.directory)
    if not directory.is_dir():
        return fail(f"{directory}: not a directory")
    trust.assume(False)  # read the config as an untrusted one: what it asks for, whatever is stored
    try:
        untrusted = read_layers(directory).untrusted
    except ConfigError as error:
        return fail(str(error))
    if args.trust_command == "revoke":
        from agent_tui.core.api import find_project_config, paths

        config = find_project_config(directory) or paths.project_config_file(directory)
        if not trust.revoke(config):
            return fail(f"{config} was not trusted")
        sys.stdout.write(f"no longer trusted: {config}\n")
        return 0
    if untrusted is None:
        sys.stdout.write(
            f"nothing to trust: {directory.resolve()} has no project config that asks for more "
            "than it may take untrusted\n"
        )
        return 0
    entry = trust.trust(untrusted.config, untrusted.powers)
    sys.stdout.write(inert(f"trusted {entry.config}; it may:") + "\n")
    sys.stdout.writelines(inert(f"  {line}") + "\n" for line in entry.powers)
    return 0
