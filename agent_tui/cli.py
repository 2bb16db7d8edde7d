"""Entry points: the TUI, ``run``, ``serve``, ``sessions``, ``log``, ``db``, ``rewind``, ``export``, ``import``,
``context``, ``warm``, ``trust``, ``skills``, ``sandbox``, ``agents``, ``mcp``, ``usage``.

Only argparse and the version are imported here (``--version`` answers before
argparse); every subcommand imports its own implementation lazily so
``agent-tui --version`` stays fast and ``sessions``/``log`` never import LiteLLM.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from agent_tui import __version__

TYPE_CHECKING = False  # type checkers read it as True; importing typing costs --version ~4 ms
if TYPE_CHECKING:
    import argparse


def _add_model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="model name as LiteLLM knows it, e.g. openai/gpt-4o")
    parser.add_argument("--api-base", help="provider base URL")
    parser.add_argument(
        "--api-key", help="provider API key (visible to other users in ps: prefer AGENT_TUI_API_KEY or --api-key-file)"
    )
    parser.add_argument("--api-key-file", metavar="PATH", help="read the provider API key from this file")


def _add_agent_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", metavar="NAME", help="the primary agent to use (build, plan, or one you defined)")


def _add_trust_flags(parser: argparse.ArgumentParser, default: object = None) -> None:
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--trust",
        dest="trust",
        action="store_const",
        const=True,
        default=default,
        help="apply this project's own config in full for this launch (MCP servers, allow rules, "
        "endpoints), without asking",
    )
    choice.add_argument(
        "--no-trust",
        dest="trust",
        action="store_const",
        const=False,
        default=default,
        help="leave out what this project's config may only do once trusted, for this launch",
    )


# core.transfer.foreign.formats.READERS, without importing it (tests/core/transfer/foreign/test_locate.py)
FOREIGN_AGENTS = ("claude", "codex", "gemini", "opencode")
APPROVAL_MODES = ("ask", "auto-edit", "auto", "full-auto")  # vocab.kinds.ApprovalMode, without importing it


def _add_approval_flags(parser: argparse.ArgumentParser, default: object = None) -> None:
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--approval",
        choices=APPROVAL_MODES,
        default=default,
        help="what runs without asking: ask (default), auto-edit (edits in the project), auto (everything "
        "inside the sandbox), full-auto (nothing is asked); deny rules always apply",
    )
    choice.add_argument(
        "--full-auto",
        dest="approval",
        action="store_const",
        const="full-auto",
        default=default,
        help="the same as --approval full-auto: no permission asks at all (deny rules still apply)",
    )


def _add_mcp_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import argparse  # not for --version (see main)

    mcp = sub.add_parser(
        "mcp", help="MCP servers: list, show, add and remove them, log in to remote ones; serve agent-tui over MCP"
    )
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    listing = mcp_sub.add_parser("list", help="every MCP server here: where it is configured, transport, state")
    listing.add_argument("--json", action="store_true", help="one JSON object per server, then one per problem")
    listing.add_argument("--check", action="store_true", help="start each enabled server and say whether it is ready")
    getting = mcp_sub.add_parser("get", help="one MCP server's configuration")
    getting.add_argument("name")
    getting.add_argument("--json", action="store_true", help="print one JSON object")
    getting.add_argument("--check", action="store_true", help="start it and say whether it is ready")
    adding = mcp_sub.add_parser(
        "add",
        help="add an MCP server: agent-tui mcp add NAME -- COMMAND ARGS…, or agent-tui mcp add NAME --url URL",
    )
    adding.add_argument("name")
    adding.add_argument(
        "--scope",
        choices=["user", "project"],
        default="user",
        help="user: your config.toml (default); project: this project's .agent-tui/config.toml",
    )
    adding.add_argument("--url", help="a remote server's URL (streamable HTTP unless --transport sse)")
    adding.add_argument("--transport", choices=["stdio", "http", "sse"], help="default: stdio, or http with --url")
    adding.add_argument("--env", action="append", default=[], metavar="K=V", help="a variable for the server process")
    adding.add_argument(
        "--header", action="append", default=[], metavar="K:V", help="an HTTP header for a --url server"
    )
    adding.add_argument(
        "--sampling",
        action="store_true",
        help="let the server ask to use the model (each request still needs your approval)",
    )
    adding.add_argument(
        "--bearer-token-env-var",
        metavar="VAR",
        help="a --url server's token comes from $VAR (sent as Authorization: Bearer; the value is never written)",
    )
    adding.add_argument(
        "words", nargs="*", metavar="-- COMMAND", help="the command and its arguments, after -- (main cuts them off)"
    )
    removing = mcp_sub.add_parser("remove", help="remove an MCP server from your config or the project's")
    removing.add_argument("name")
    removing.add_argument("--scope", choices=["user", "project"], help="which config (needed when both have it)")
    login = mcp_sub.add_parser("login", help="log in to a remote MCP server with OAuth (browser), keep its tokens")
    login.add_argument("name")
    login.add_argument(
        "--timeout", type=float, default=300.0, metavar="SECONDS", help="how long to wait for the browser (300)"
    )
    logout = mcp_sub.add_parser("logout", help="forget a remote MCP server's OAuth tokens")
    logout.add_argument("name")
    serving = mcp_sub.add_parser("serve", help="serve agent-tui's sessions as MCP tools on stdin/stdout")
    _add_model_flags(serving)
    _add_trust_flags(serving, default=argparse.SUPPRESS)
    serving.add_argument(
        "--permission",
        choices=["allow", "deny", "stop"],
        default="deny",
        help="how to answer the permission asks the approval mode leaves: allow, deny (the model is told "
        "and goes on; the default) or stop (that session's run ends, as run --permission stop does)",
    )


def build_parser() -> argparse.ArgumentParser:
    import argparse  # not for --version (see main)

    parser = argparse.ArgumentParser(prog="agent-tui", description="A terminal coding agent.")
    parser.add_argument("--version", action="version", version=f"agent-tui {__version__}")
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
    _add_model_flags(parser)
    _add_agent_flag(parser)
    _add_trust_flags(parser)
    _add_approval_flags(parser)
    sub = parser.add_subparsers(dest="command")

    from agent_tui.commands.run_exit import HELP as RUN_EXIT_CODES

    run = sub.add_parser("run", help="run one prompt headless", epilog=RUN_EXIT_CODES)
    target = run.add_mutually_exclusive_group()
    target.add_argument("--session", help="continue this session")
    target.add_argument(
        "--continue", dest="continue_", action="store_true", help="continue the most recent session of this directory"
    )
    _add_model_flags(run)
    _add_agent_flag(run)
    _add_trust_flags(run, default=argparse.SUPPRESS)
    _add_approval_flags(run, default=argparse.SUPPRESS)
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
    run.add_argument(
        "--permission",
        choices=["allow", "deny", "stop"],
        default="deny",
        help="how to answer the permission asks the approval mode leaves: allow, deny (the model is told "
        "and goes on; the default) or stop (the run ends, exit 4)",
    )
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

    serve = sub.add_parser("serve", help="serve the local HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=4096, help="port to listen on (0 picks a free one and prints it)")
    _add_trust_flags(serve, default=argparse.SUPPRESS)

    trusting = sub.add_parser("trust", help="trust a project's own config, list trusted projects, or revoke trust")
    trusting.add_argument(
        "trust_command",
        choices=["add", "list", "revoke"],
        help="add: trust the config of DIR's project (shows what it grants); list: the trusted "
        "projects; revoke: stop trusting DIR's project",
    )
    trusting.add_argument("directory", nargs="?", default=".", help="a directory of the project (default: here)")

    sandbox = sub.add_parser(
        "sandbox",
        help="run a command under the sandbox policy the agent's bash has here (to check what it allows)",
    )
    sandbox.add_argument("--agent", help="use this agent's policy (the plan agent's is read-only)")
    sandbox.add_argument("words", nargs=argparse.REMAINDER, metavar="-- CMD", help="the command and its arguments")
    skills = sub.add_parser("skills", help="list the skills found for a directory (SKILL.md folders)")
    skills.add_argument("directory", nargs="?", default=".", help="a directory of the project (default: here)")
    skills.add_argument("--agent", help="mark the skills this agent's rules deny (default: the configured agent)")
    skills.add_argument("--json", action="store_true", help="one JSON object per skill, then one per problem")

    agents = sub.add_parser("agents", help="list the agents: built in, from config files and from Markdown files")
    agents.add_argument("directory", nargs="?", default=".", help="a directory of the project (default: here)")
    agents.add_argument("--json", action="store_true", help="one JSON object per agent, then one per problem")

    _add_mcp_parser(sub)

    sessions = sub.add_parser("sessions", help="list, fork, rename and delete sessions")
    sessions_sub = sessions.add_subparsers(dest="sessions_command", required=True)
    listing = sessions_sub.add_parser("list", help="list sessions, newest first")
    listing.add_argument("--all", action="store_true", help="every location, not only this one")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.add_argument("--search", help="full-text search over titles and messages")
    listing.add_argument("--limit", type=int, default=50)
    forking = sessions_sub.add_parser("fork", help="a new session with this one's history (prints its id)")
    forking.add_argument("session_id")
    forking.add_argument("--at", metavar="MESSAGE_ID", help="fork from just before this prompt (default: all of it)")
    renaming = sessions_sub.add_parser("rename", help="give a session a new title")
    renaming.add_argument("session_id")
    renaming.add_argument("title")
    deleting = sessions_sub.add_parser("delete", help="delete a session: its events, rows and snapshots, for good")
    deleting.add_argument("session_id")
    deleting.add_argument("--yes", action="store_true", help="do not ask (needed when standard input is no terminal)")

    log = sub.add_parser("log", help="print a session's durable events as JSON lines")
    log.add_argument("session_id")
    log.add_argument("--after", type=int, default=None, help="only events after this seq")
    log.add_argument("--follow", action="store_true", help="keep printing new events")

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

    exporting = sub.add_parser("export", help="print a session as JSONL records (reference 002) or Markdown")
    exporting.add_argument("session_id")
    exporting.add_argument("--format", choices=["jsonl", "markdown"], default="jsonl")
    exporting.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    importing = sub.add_parser(
        "import",
        help="a new session (in this directory) from a JSONL export, or from another agent's sessions"
        f" (--from {'|'.join(FOREIGN_AGENTS)})",
    )
    importing.add_argument(
        "file", nargs="?", metavar="FILE.jsonl|PATH|SESSION-ID", help="the export; with --from a session file or id"
    )
    importing.add_argument(
        "--from", dest="source", choices=FOREIGN_AGENTS, help="another agent's sessions (default: this directory's)"
    )
    importing.add_argument("--all", action="store_true", help="with --from: every directory's sessions")
    importing.add_argument("--project", metavar="DIR", help="with --from: DIR's sessions, imported into DIR")
    importing.add_argument("--again", action="store_true", help="with --from: import sessions imported before again")

    context = sub.add_parser(
        "context", help="what the next request would hold: system prompt, instructions, tools, history (tokens)"
    )
    context.add_argument("session_id", nargs="?", help="the session (default: the latest in this directory)")
    context.add_argument("--json", action="store_true", help="print one JSON object")

    warm = sub.add_parser("warm", help="the warm process that makes launches start fast")
    warm.add_argument(
        "warm_command",
        choices=["status", "start", "stop"],
        help="status: show it (pid, version, idle time, RSS); start: start one and wait for it; "
        "stop: end it (running launches finish)",
    )
    warm.add_argument("--json", action="store_true", help="status as one JSON object per warm process")

    usage = sub.add_parser("usage", help="tokens and cost across all sessions, by day, week, month, model, ...")
    usage.add_argument(
        "--by",
        choices=["day", "week", "month", "model", "agent", "project", "session"],
        default="day",
        help="how to group the steps (default: day; weeks start on Monday; times are local)",
    )
    usage.add_argument("--since", metavar="DATE", help="from this day on (YYYY-MM-DD)")
    usage.add_argument("--until", metavar="DATE", help="up to and including this day (YYYY-MM-DD)")
    shape = usage.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="one JSON object per group (cost null when unknown)")
    shape.add_argument("--chart", action="store_true", help="a terminal chart of tokens and cost over time")

    permissions = sub.add_parser("permissions", help='the approvals saved by answering "always": list or revoke')
    permissions.add_argument(
        "permissions_command",
        choices=["list", "revoke"],
        help="list: this project's saved approvals; revoke: stop allowing one (ACTION PATTERN) or, with --all, every one",
    )
    permissions.add_argument("action", nargs="?", help="revoke: the action (bash, edit, mcp, ...)")
    permissions.add_argument("pattern", nargs="?", help="revoke: the pattern as listed (quote it)")
    permissions.add_argument("--all", action="store_true", help="revoke: every saved approval of the project")
    permissions.add_argument("--project", metavar="DIR", default=".", help="a directory of the project (default: here)")
    permissions.add_argument("--json", action="store_true", help="list: one JSON object per approval")

    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("rebuild", help="rebuild every projection from the event table")
    copy = db_sub.add_parser(
        "copy", help="copy sessions between SQLite and PostgreSQL (resumable, idempotent, verified by checksums)"
    )
    copy.add_argument("source", metavar="SRC", help="a SQLite file, 'default' (this store) or a postgresql:// URL")
    copy.add_argument("destination", metavar="DST", help="a SQLite file, 'default' (this store) or a postgresql:// URL")
    copy.add_argument(
        "--session",
        action="append",
        default=[],
        metavar="ID",
        help="only this session (repeatable); forks bring their parent",
    )
    copy.add_argument("--batch", type=int, default=500, metavar="N", help="events per destination transaction (500)")
    copy.add_argument("--dry-run", action="store_true", help="say what would be copied; write nothing")
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
