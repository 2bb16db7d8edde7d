"""Entry points: the TUI, ``run``, ``serve``, ``sessions``, ``log``, ``db``, ``rewind``, ``export``, ``import``,
``context``, ``warm``, ``trust``, ``skills``, ``sandbox``, ``agents``, ``mcp``, ``usage``.

This module assembles the command line and dispatches: each subcommand's parser is built by its
``commands/<name>_args.py`` (argparse only), its implementation is imported only once chosen. Only
the version is imported at first (``--version`` answers before argparse), so ``agent-tui --version``
stays fast and ``sessions``/``log`` never import LiteLLM.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from agent_tui import __version__

TYPE_CHECKING = False  # type checkers read it as True; importing typing costs --version ~4 ms
if TYPE_CHECKING:
    import argparse


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: the app's flags, then each subcommand's parser, built by its
    ``commands/<name>_args.py`` (argparse only) in the order ``--help`` lists them."""
    import argparse  # not for --version (see main)

    from agent_tui.commands import (
        agents_args,
        context_args,
        db_args,
        export_args,
        import_args,
        log_args,
        mcp_args,
        permissions_args,
        rewind_args,
        run_args,
        sandbox_args,
        serve_args,
        sessions_args,
        skills_args,
        trust_args,
        tui_args,
        usage_args,
        warm_args,
    )

    parser = argparse.ArgumentParser(prog="agent-tui", description="A terminal coding agent.")
    parser.add_argument("--version", action="version", version=f"agent-tui {__version__}")
    tui_args.add_flags(parser)
    sub = parser.add_subparsers(dest="command")
    for command in (
        run_args,
        serve_args,
        trust_args,
        sandbox_args,
        skills_args,
        agents_args,
        mcp_args,
        sessions_args,
        log_args,
        rewind_args,
        export_args,
        import_args,
        context_args,
        warm_args,
        usage_args,
        permissions_args,
        db_args,
    ):
        command.add_parser(sub)
    return parser


_COMMANDS = {
    None: "agent_tui.commands.tui_cmd",
    "run": "agent_tui.commands.run_cmd",
    "serve": "agent_tui.commands.serve_cmd",
    "sessions": "agent_tui.commands.sessions_cmd",
    "log": "agent_tui.commands.log_cmd",
    "db": "agent_tui.commands.db_cmd",
    "rewind": "agent_tui.commands.rewind_cmd",
    "export": "agent_tui.commands.export_cmd",
    "import": "agent_tui.commands.export_cmd",
    "context": "agent_tui.commands.context_cmd",
    "warm": "agent_tui.commands.warm_cmd",
    "trust": "agent_tui.commands.trust_cmd",
    "skills": "agent_tui.commands.skills_cmd",
    "sandbox": "agent_tui.commands.sandbox_cmd",
    "agents": "agent_tui.commands.agents_cmd",
    "mcp": "agent_tui.commands.mcp_cmd",
    "usage": "agent_tui.commands.usage_cmd",
    "permissions": "agent_tui.commands.permissions_cmd",
}
WARM_COMMANDS = (None, "run", "serve")
"""What a warm process may run: the commands that import the app, LiteLLM or the server."""


_HEADLESS = ("run", "serve")  # the warm commands that are not the app
_TUI_FLAGS = frozenset({"-c", "--continue", "-r", "--resume", "--trust", "--no-trust", "--full-auto"})
_TUI_VALUED = frozenset({"--model", "--api-base", "--api-key", "--agent", "--approval"})


def _surely_warm(argv: Sequence[str]) -> bool:
    """The launches people type most, told apart without argparse: ``run …``/``serve …`` (the warm
    child parses them, usage errors included) and the TUI with its exact flags. Anything else
    (abbreviations, ``--help``, an ID after ``-r``) is argparse's to read first."""
    if not argv or argv[0] in _HEADLESS:
        return True
    words = iter(argv)
    for word in words:
        if word in _TUI_VALUED:
            value = next(words, None)
            if value is None or value.startswith("-"):
                return False
        elif word not in _TUI_FLAGS and word.partition("=")[0] not in _TUI_VALUED:
            return False
    return True


def _launch_warm(tui: bool) -> int | None:
    from agent_tui.warm import client

    return client.launch(list(sys.argv), tui=tui)


def _server_command(words: list[str]) -> list[str] | None:
    """What follows ``--`` in ``mcp add NAME [options] -- COMMAND ARGS…``: the server's command, its
    own options included. argparse would read those as ``mcp add``'s, or match the positional
    before the options, so they are cut off before it parses."""
    if words[:2] != ["mcp", "add"] or "--" not in words:
        return None
    return words[words.index("--") + 1 :]


def _initial_prompt(words: list[str]) -> tuple[list[str], str | None]:
    """``agent-tui "fix the flaky test"``: the TUI starts with that prompt sent, as Claude Code and
    Codex do. The first word that is neither a flag, a flag's value nor a subcommand starts the
    prompt; the words after it up to the next flag are the rest of it (quoting is optional)."""
    n = 0
    while n < len(words):
        word = words[n]
        if word == "--":
            return words, None
        if word in _TUI_VALUED:
            n += 2
            continue
        if word in ("-r", "--resume") and n + 1 < len(words) and not words[n + 1].startswith("-"):
            n += 2  # the session ID
            continue
        if word.startswith("-"):
            n += 1
            continue
        if word in _COMMANDS:
            return words, None
        end = n
        while end < len(words) and not words[end].startswith("-"):
            end += 1
        return [*words[:n], *words[end:]], " ".join(words[n:end])
    return words, None


def _parse(words: list[str]) -> argparse.Namespace:
    """argparse's reading of the command line, with what it cannot read taken out first: an MCP
    server's own command (``args.words``) and the TUI's initial prompt (``args.prompt``)."""
    server_command = _server_command(words)
    if server_command is not None:
        args = build_parser().parse_args(words[: -len(server_command) - 1])
        args.words = server_command
        return args
    words, prompt = _initial_prompt(words)
    args = build_parser().parse_args(words)
    if args.command is None:
        args.prompt = prompt
    return args


def main(argv: Sequence[str] | None = None, warm: bool | None = None) -> int:
    """The ``agent-tui`` entry point. ``warm``: may a warm process run this launch (by default only
    when called as the entry point, ``argv`` None; a warm child runs it with False)."""
    if list(sys.argv[1:] if argv is None else argv) == ["--version"]:  # without argparse's import: ~10 ms
        print(f"agent-tui {__version__}")
        return 0
    may_warm = argv is None if warm is None else warm
    words = list(sys.argv[1:] if argv is None else argv)
    if argv is None and any(word.startswith("--api-k") for word in words):
        from agent_tui.api_key_arg import hide_given_key

        hide_given_key(words)  # before anything else runs: the key leaves ps at once
    if may_warm and _surely_warm(words):  # argparse costs a launch ~6 ms
        code = _launch_warm(tui=not words or words[0] not in _HEADLESS)
        if code is not None:
            return code
        may_warm = False
    args = _parse(words)
    if getattr(args, "api_key_file", None):
        from agent_tui.api_key_arg import read_key_file

        try:
            if args.api_key:
                raise ValueError("give --api-key or --api-key-file, not both")
            args.api_key = read_key_file(args.api_key_file)
        except ValueError as error:
            print(f"agent-tui: {error}", file=sys.stderr)
            return 2
    if may_warm and args.command in WARM_COMMANDS:
        code = _launch_warm(tui=args.command is None)
        if code is not None:
            return code
    try:
        module = importlib.import_module(_COMMANDS[args.command])
    except ModuleNotFoundError as error:
        if error.name != _COMMANDS[args.command]:
            raise
        print(f"agent-tui: '{args.command or 'tui'}' is not available in this build", file=sys.stderr)
        return 2
    return int(module.main(args) or 0)
