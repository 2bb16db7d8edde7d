"""Every command, declared once: the slash parser, the Ctrl+P palette and the help screen read it.

A command names the app action it runs (``action_<action>``, the same action a
key binding may run, which is how the help screen finds its key); the app
dispatches both typed and picked commands through :func:`resolve`. A command
with an argument appears in the palette once per choice the app offers.
No Textual here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from agent_tui.tui.choices import Choice


@dataclass(frozen=True)
class CommandSpec:
    name: str  # typed as /name
    help: str  # one line, in the help screen and the palette
    action: str  # the app action it runs, with the argument if it takes one
    title: str  # in the palette; with an argument, "title: choice" per choice
    arg: str | None = None  # the argument's name, when one is required
    choices: str | None = None  # with an argument: the app method listing the palette's choices
    slash: bool = True  # False: offered in the palette only
    in_palette: bool = True  # False: typed only (an argument no list can offer, such as a path)
    custom: bool = False  # a prompt file's command: any argument, run as ``run_custom(name, arg)``
    free: bool = False  # the argument is free text (no choices): the palette entry runs it without one, to ask

    @property
    def usage(self) -> str:
        return f"/{self.name}" + (f" {self.arg}" if self.arg else "")


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("new", "start a new session here", "new_session", "New session"),
    CommandSpec("resume", "pick a session to open", "resume", "Resume session"),
    CommandSpec("compact", "summarise older history to free context", "compact", "Compact"),
    CommandSpec(
        "context", "how big the next request is: prompt, instructions, tools, history", "show_context", "Context size"
    ),
    CommandSpec(
        "usage", "tokens and cost of this session and its subagents, per model and agent", "show_usage", "Usage"
    ),
    CommandSpec(
        "init", "write or improve this project's AGENTS.md (you approve the edit)", "init_agents_md", "Init AGENTS.md"
    ),
    CommandSpec("rewind", "go back to an earlier prompt: conversation, files or both (or undo)", "rewind", "Rewind"),
    CommandSpec("fork", "continue in a new session with this one's history", "fork", "Fork session"),
    CommandSpec("export", "write the session as Markdown into its directory", "export", "Export session"),
    CommandSpec("rename", "give this session a new title", "rename", "Rename session", "TITLE", free=True),
    CommandSpec("model", "use another model from the next step", "select_model", "Model", "NAME", "model_names"),
    CommandSpec(
        "agent", "use another primary agent from the next step", "select_agent", "Agent", "NAME", "agent_names"
    ),
    CommandSpec(
        "image",
        "attach an image (PNG, JPEG, GIF, WebP) to the prompt",
        "attach_image",
        "Attach image",
        "PATH",
        in_palette=False,
    ),
    CommandSpec("theme", "switch the colour theme", "select_theme", "Theme", "NAME", "theme_names"),
    CommandSpec("mcp", "MCP servers here: state and tools", "mcp_servers", "MCP servers"),
    CommandSpec(
        "agents", "the agents here: name, mode, description, where; Enter selects one", "list_agents", "Agents"
    ),
    CommandSpec("skills", "the skills found here: name, description, where", "list_skills", "Skills"),
    CommandSpec(
        "permissions",
        "what this project allows without asking (revoke with d), this session's mode",
        "list_permissions",
        "Permissions",
    ),
    CommandSpec("help", "keys and commands", "help", "Help"),
    CommandSpec("quit", "quit agent-tui", "shutdown", "Quit", slash=False),
)
BY_NAME = {spec.name: spec for spec in COMMANDS}
SLASH_COMMANDS = tuple(spec for spec in COMMANDS if spec.slash)


def custom_spec(name: str, help: str) -> CommandSpec:
    """A custom command (see ``custom_commands``) as the registry lists it."""
    return CommandSpec(name, help, "run_custom", f"/{name}", arg="[ARGUMENTS]", custom=True)


def _lookup(extra: Iterable[CommandSpec]) -> dict[str, CommandSpec]:
    return {**{spec.name: spec for spec in extra}, **BY_NAME}


@dataclass(frozen=True)
class Command:
    name: str
    arg: str = ""


class CommandError(ValueError):
    """A slash command that cannot run; the message says how to write it."""


def parse_command(text: str, extra: Iterable[CommandSpec] = ()) -> Command | None:
    """``/model gpt-4o`` -> Command("model", "gpt-4o"); plain text -> None. ``extra``: custom commands,
    whose argument may run over several lines."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, arg = stripped[1:].partition(" ")
    name, newline, rest = name.partition("\n")
    arg = rest + (" " if rest and arg else "") + arg if newline else arg
    specs = _lookup(extra)
    spec = specs.get(name)
    if spec is not None and spec.custom:
        return Command(name, arg.strip())
    if newline or "\n" in arg:
        return None
    if spec is None or not spec.slash:
        known = " ".join(f"/{s.name}" for s in specs.values() if s.slash)
        raise CommandError(f"unknown command /{name} (known: {known})")
    arg = arg.strip()
    if spec.arg and not arg and spec.choices is None:  # with a list to pick from, the app opens it
        raise CommandError(f"/{name} needs {spec.arg}: {spec.usage}")
    if not spec.arg and arg:
        raise CommandError(f"/{name} takes no argument")
    return Command(name, arg)


def slash_choices(prefix: str, extra: Iterable[CommandSpec] = ()) -> list[Choice]:
    """The ``/`` completion list: commands whose name starts with ``prefix``, with their help."""
    specs = [*SLASH_COMMANDS, *(s for s in extra if s.name not in BY_NAME)]
    return [
        Choice(f"/{s.name} ", s.usage, s.help, complete=not s.arg or s.custom or s.choices is not None)
        for s in specs
        if s.name.startswith(prefix)
    ]


def resolve(command: Command, extra: Iterable[CommandSpec] = ()) -> tuple[str, tuple[str, ...]]:
    """The action a command runs and its arguments (as for ``App.run_action``)."""
    spec = _lookup(extra)[command.name]
    if spec.custom:
        return spec.action, (command.name, command.arg)
    return spec.action, ((command.arg,) if spec.arg else ())


def palette(host: object, extra: Iterable[CommandSpec] = ()) -> Iterable[tuple[str, str, Command]]:
    """(title, help, command) per palette entry; ``host`` (the app) lists an argument's choices."""
    for spec in (*COMMANDS, *extra):
        if not spec.in_palette:
            continue
        if spec.custom or spec.choices is None:
            yield spec.title, spec.help, Command(spec.name)
            continue
        choices: Callable[[], Iterable[str]] = getattr(host, spec.choices)
        for choice in choices():
            yield f"{spec.title}: {choice}", spec.help, Command(spec.name, choice)
