"""Every command, declared once: the slash parser, the Ctrl+P palette and the help screen read it.

A command names the app action it runs (``action_<action>``, the same action a
key binding may run, which is how the help screen finds its key); the app
dispatches both typed and picked commands through :func:`resolve`. A command
with an argument appears in the palette once per choice the app offers.
No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable


@dataclass(frozen=True)
class CommandSpec:
    name: str  # typed as /name
    help: str  # one line, in the help screen and the palette
    action: str  # the app action it runs, with the argument if it takes one
    title: str  # in the palette; with an argument, "title: choice" per choice
    arg: str | None = None  # the argument's name, when one is required
    choices: str | None = None  # with an argument: the app method listing the palette's choices
    slash: bool = True  # False: offered in the palette only
    free: bool = False  # the argument is free text (no choices): the palette entry runs it without one, to ask

    @property
    def usage(self) -> str:
        return f"/{self.name}" + (f" {self.arg}" if self.arg else "")


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("new", "start a new session here", "new_session", "New session"),
    CommandSpec("resume", "pick a session to open", "resume", "Resume session"),
    CommandSpec("compact", "summarise older history to free context", "compact", "Compact"),
    CommandSpec("rewind", "go back to an earlier prompt: conversation, files or both (or undo)", "rewind", "Rewind"),
    CommandSpec("fork", "continue in a new session with this one's history", "fork", "Fork session"),
    CommandSpec("export", "write the session as Markdown into its directory", "export", "Export session"),
    CommandSpec("rename", "give this session a new title", "rename", "Rename session", "TITLE", free=True),
    CommandSpec("model", "use another model from the next step", "select_model", "Model", "NAME", "model_names"),
    CommandSpec("theme", "switch the colour theme", "select_theme", "Theme", "NAME", "theme_names"),
    CommandSpec("help", "keys and commands", "help", "Help"),
    CommandSpec("quit", "quit agent-tui", "shutdown", "Quit", slash=False),
)
BY_NAME = {spec.name: spec for spec in COMMANDS}
SLASH_COMMANDS = tuple(spec for spec in COMMANDS if spec.slash)


@dataclass(frozen=True)
class Command:
    name: str
    arg: str = ""


class CommandError(ValueError):
    """A slash command that cannot run; the message says how to write it."""


def parse_command(text: str) -> Command | None:
    """``/model gpt-4o`` -> Command("model", "gpt-4o"); plain text -> None."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or "\n" in stripped:
        return None
    name, _, arg = stripped[1:].partition(" ")
    spec = BY_NAME.get(name)
    if spec is None or not spec.slash:
        known = " ".join(f"/{s.name}" for s in SLASH_COMMANDS)
        raise CommandError(f"unknown command /{name} (known: {known})")
    arg = arg.strip()
    if spec.arg and not arg:
        raise CommandError(f"/{name} needs {spec.arg}: {spec.usage}")
    if not spec.arg and arg:
        raise CommandError(f"/{name} takes no argument")
    return Command(name, arg)


def resolve(command: Command) -> tuple[str, tuple[str, ...]]:
    """The action a command runs and its arguments (as for ``App.run_action``)."""
    spec = BY_NAME[command.name]
    return spec.action, ((command.arg,) if spec.arg else ())


def palette(host: object) -> Iterable[tuple[str, str, Command]]:
    """(title, help, command) per palette entry; ``host`` (the app) lists an argument's choices."""
    for spec in COMMANDS:
        if spec.choices is None:
            yield spec.title, spec.help, Command(spec.name)
            continue
        choices: Callable[[], Iterable[str]] = getattr(host, spec.choices)
        for choice in choices():
            yield f"{spec.title}: {choice}", spec.help, Command(spec.name, choice)
