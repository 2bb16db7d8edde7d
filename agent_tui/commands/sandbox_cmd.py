"""``agent-tui sandbox [--agent NAME] -- CMD…``: run a command under the sandbox policy the agent's
``bash`` would have here, to see what it allows.

One line on stderr says the policy; the command's own output and exit code
follow. Where no sandbox mechanism exists it runs nothing: it names what is
missing and exits 3 (checking a sandbox must not run the command unconfined).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from agent_tui.commands.errors import fail
from agent_tui.vocab.terminal_text import inert

EXIT_NO_SANDBOX = 3


def main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import ConfigError, load_settings, sandboxed_command

    words = args.words[1:] if args.words[:1] == ["--"] else args.words  # later "--" belong to the command
    if not words:
        return fail("name a command to run: agent-tui sandbox -- CMD [ARGS…]", 2)
    location = Path.cwd()
    try:
        settings = load_settings(location)
    except ConfigError as error:
        return fail(str(error))
    agent = args.agent or settings.agent
    if agent not in settings.agents:
        return fail(f"unknown agent {agent!r}; the agents: {', '.join(settings.agents)}")
    command = sandboxed_command(location, settings, agent, words)
    print(inert(f"agent-tui: sandbox for {agent}: {command.policy}"), file=sys.stderr, flush=True)
    if command.refusal is not None:
        return fail(f"not run: {command.refusal}", EXIT_NO_SANDBOX)
    try:
        return subprocess.run(command.argv, env=command.env, cwd=location, check=False).returncode
    except KeyboardInterrupt:
        return 130
