"""Asks for the arguments an MCP prompt still needs: one line each, completed by the server. Enter on
the last one runs the prompt, Esc drops it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Static

from agent_tui.vocab.terminal_text import inert

Complete = Callable[[str, str], Awaitable[list[str]]]
"""(argument, value typed so far) -> the server's completions (``completion/complete``)."""


class ServerSuggester(Suggester):
    """Suggests the server's first completion of what is typed (Right accepts it)."""

    def __init__(self, argument: str, complete: Complete) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._argument = argument
        self._complete = complete

    async def get_suggestion(self, value: str) -> str | None:
        for option in await self._complete(self._argument, value):
            if option.startswith(value) and option != value:
                return option
        return None


class McpPromptScreen(ModalScreen[dict[str, str] | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, title: str, arguments: Sequence[Any], complete: Complete) -> None:
        super().__init__()
        self.prompt_title = title
        self.arguments = list(arguments)
        self._complete = complete

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(inert(self.prompt_title), style="bold"))
            for argument in self.arguments:  # the server's words: inert, as every text a server gives
                yield Static(Text(inert(argument.name + (f": {argument.description}" if argument.description else ""))))
                yield Input(
                    placeholder=argument.name,
                    id=f"arg-{argument.name}",
                    suggester=ServerSuggester(argument.name, self._complete),
                )
            yield Static("enter next · → accept suggestion · esc cancel", id="confirm-keys")

    def on_mount(self) -> None:
        self.query(Input).first().focus()

    @on(Input.Submitted)
    def _next(self, event: Input.Submitted) -> None:
        inputs = list(self.query(Input))
        empty = [i for i in inputs if not i.value.strip()]
        if empty:  # each one is required
            empty[0].focus()
            return
        self.dismiss({a.name: i.value.strip() for a, i in zip(self.arguments, inputs, strict=True)})

    def action_cancel(self) -> None:
        self.dismiss(None)
