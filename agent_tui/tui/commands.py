"""Slash commands: one parser shared by the prompt and the Ctrl+P palette."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommandSpec:
    name: str
    arg: str | None  # the argument's name, when one is required
    help: str


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("new", None, "start a new session here"),
    CommandSpec("resume", None, "pick a session to open (Ctrl+R)"),
    CommandSpec("compact", None, "summarise older history to free context"),
    CommandSpec("model", "NAME", "use another model from the next step"),
    CommandSpec("theme", "NAME", "switch the colour theme"),
    CommandSpec("help", None, "keys and commands"),
)
BY_NAME = {spec.name: spec for spec in COMMANDS}


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
    if spec is None:
        known = " ".join(f"/{s.name}" for s in COMMANDS)
        raise CommandError(f"unknown command /{name} (known: {known})")
    arg = arg.strip()
    if spec.arg and not arg:
        raise CommandError(f"/{name} needs {spec.arg}: /{name} {spec.arg}")
    if not spec.arg and arg:
        raise CommandError(f"/{name} takes no argument")
    return Command(name, arg)
