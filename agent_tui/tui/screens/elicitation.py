"""An MCP server's question (elicitation) as a modal: its form's fields, checked, or a link to open.

Form: one line per field (a text line for strings and numbers, a checkbox for a
boolean, a list for an enum); Ctrl+S or Enter in a line accepts once the values
fit the schema (the problems are listed otherwise), Ctrl+D declines, Esc
cancels. URL: the link is shown; o opens it (and accepts), Ctrl+D declines,
Esc cancels. The dialog answers with (action, content).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, Static

from agent_tui.vocab.elicitation import ElicitationRequest, FormField, form_fields, validate
from agent_tui.vocab.terminal_text import inert

Answer = tuple[str, dict[str, Any] | None]


def _label(f: FormField) -> Text:
    text = Text(inert(f.title) + (" *" if f.required else ""), style="bold")
    if f.description and f.description != f.title:
        text.append(f"  {inert(f.description)}", style="dim")
    return text


class ElicitationScreen(ModalScreen[Answer]):
    BINDINGS = [
        Binding("escape", "answer('cancel')", "cancel"),
        Binding("ctrl+d", "answer('decline')", "decline", priority=True),
        Binding("ctrl+s", "accept", "accept", priority=True),
    ]

    def __init__(self, request: ElicitationRequest) -> None:
        super().__init__()
        self.request = request
        self.fields = form_fields(request.schema) if request.mode == "form" else []
        self.problems: list[str] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="confirm"):
            # The server's words: no control sequence, no bidi override reaches the screen (``inert``).
            yield Static(Text(inert(f"MCP server {self.request.server} asks"), style="bold"))
            yield Static(Text(inert(self.request.message)))
            if self.request.mode == "url":
                yield Static(Text(inert(self.request.url or ""), style="underline"), id="elicit-url")
            for f in self.fields:
                yield from self._field(f)
            yield Static("", id="elicit-problems")
            with Horizontal(id="elicit-buttons"):
                yield Button("Open" if self.request.mode == "url" else "Accept", id="accept", variant="primary")
                yield Button("Decline", id="decline")
                yield Button("Cancel", id="cancel")
            keys = "o open · " if self.request.mode == "url" else "enter/ctrl+s accept · "
            yield Static(keys + "ctrl+d decline · esc cancel", id="confirm-keys")

    def _field(self, f: FormField) -> ComposeResult:
        if f.kind == "boolean":
            yield Checkbox(f.title, value=bool(f.default), id=f"field-{f.name}")
            return
        yield Static(_label(f))
        if f.kind == "enum":
            options = [(option, option) for option in f.options]
            default = str(f.default) if f.default is not None and str(f.default) in f.options else Select.BLANK
            yield Select(
                options, value=default, allow_blank=not f.required or default is Select.BLANK, id=f"field-{f.name}"
            )
            return
        kind = {"integer": "integer", "number": "number"}.get(f.kind, "text")
        value = "" if f.default is None else str(f.default)
        yield Input(value=value, placeholder=f.kind, type=kind, id=f"field-{f.name}")  # type: ignore[arg-type]

    def on_mount(self) -> None:
        focusable = self.query("Input, Checkbox, Select").first() if self.fields else self.query_one("#accept")
        focusable.focus()

    def raw(self) -> dict[str, Any]:
        """What each field holds now: text, a bool, or the chosen option (None for none)."""
        values: dict[str, Any] = {}
        for f in self.fields:
            widget = self.query_one(f"#field-{f.name}")
            value = getattr(widget, "value", None)
            values[f.name] = None if value is Select.BLANK else value
        return values

    def action_accept(self) -> None:
        if self.request.mode == "url":
            self.app.open_url(self.request.url or "")
            self.dismiss(("accept", None))
            return
        content, self.problems = validate(self.fields, self.raw())
        self.query_one("#elicit-problems", Static).update(Text("\n".join(self.problems), style="red"))
        if not self.problems:
            self.dismiss(("accept", content))

    def action_answer(self, action: str) -> None:
        self.dismiss((action, None))

    def on_key(self, event: Any) -> None:
        if self.request.mode == "url" and event.key == "o":
            event.stop()
            self.action_accept()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_accept()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "accept":
            self.action_accept()
        else:
            self.action_answer(event.button.id or "cancel")
