"""All keys and commands on one modal page (F1, /help), made from their declarations.

Keys come from the ``BINDINGS`` the app hands over (its own, the prompt's, the
permission panel's), each shown with its tooltip, else its footer description;
commands come from the command registry, with the key of the binding that runs
the same action. Nothing here is a second list to keep in step.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.tui.command_registry import SLASH_COMMANDS, CommandSpec

_KEY_NAMES = {"escape": "Esc", "pageup": "PageUp", "pagedown": "PageDown"}

TYPING: tuple[tuple[str, str], ...] = (
    ("/command", "run a command (below); Tab completes it"),
    (
        "@path",
        "attach a file, folder or image (Tab completes); @name of a subagent hands it the work; "
        "@server:uri attaches an MCP server's resource",
    ),
    ("!command", "run a shell command yourself, as the agent's bash would, without asking the model"),
    ("//text", "send a message that starts with / (//etc/hosts → /etc/hosts)"),
    ("[pasted N lines]", 'a long paste, sent in full (the key for "expand the chips" shows it)'),
)
"""What the prompt reads in what you type, besides keys."""


def key_label(keys: str) -> str:
    """``shift+enter,ctrl+j`` -> ``Shift+Enter, Ctrl+J``; ``escape`` -> ``Esc``; ``y`` -> ``y``."""

    def one(key: str) -> str:
        *modifiers, name = key.split("+")
        if name in _KEY_NAMES:
            name = _KEY_NAMES[name]
        elif len(name) == 1:  # a letter alone is typed as it is; with a modifier it reads Ctrl+R
            name = name.upper() if modifiers else name
        else:
            name = name.upper() if name[0] == "f" and name[1:].isdigit() else name.capitalize()
        return "+".join([*(m.capitalize() for m in modifiers), name])

    return ", ".join(one(key.strip()) for key in keys.split(","))


def key_rows(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """(keys, what they do) for every binding that says what it does; aliases share a row."""
    rows = []
    for binding in (b if isinstance(b, Binding) else Binding(*b) for b in bindings):
        what = binding.tooltip or binding.description
        if what:
            rows.append((key_label(binding.key), what))
    return rows


def command_rows(
    bindings: Iterable[BindingType], commands: Iterable[CommandSpec] = SLASH_COMMANDS
) -> list[tuple[str, str]]:
    """(usage, help) per slash command, naming the key bound to the same action."""
    keys = {b.action: b.key for b in Binding.make_bindings(bindings)}
    return [
        (spec.usage, spec.help + (f" ({key_label(keys[spec.action])})" if spec.action in keys else ""))
        for spec in commands
    ]


def help_table(keys: list[tuple[str, str]], commands: list[tuple[str, str]]) -> Table:
    """Keys, what the prompt reads in typed text, then commands; every cell as plain ``Text``, so a
    ``[pasted N lines]`` shows as typed instead of vanishing as a markup tag."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for rows in (keys, TYPING, commands):
        if table.row_count:
            table.add_row("", "")
        for left, right in rows:
            table.add_row(Text(left), Text(right))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1", "dismiss", "close")]

    def __init__(self, bindings: Iterable[BindingType], custom: Iterable[CommandSpec] = ()) -> None:
        super().__init__()
        bindings = list(bindings)
        self.keys = key_rows(bindings)
        self.commands = command_rows(bindings, [*SLASH_COMMANDS, *custom])

    def compose(self) -> ComposeResult:
        table = help_table(self.keys, self.commands)
        with VerticalScroll(id="help"):
            yield Static("Keys and commands  ·  Esc closes", classes="help-title")
            yield Static(table)
