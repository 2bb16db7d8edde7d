"""An MCP server's sampling request as a modal: what it would send to the session's model, approve or decline.

Shows the server, the system prompt, each message (an image or audio part is a
line saying what it was), the token limit, and the temperature and stop
sequences when given; every word the server wrote passes ``inert`` first. y (or
the Approve button) approves: the session's model answers the server; n, Ctrl+D
or Esc declines, which is also what the server gets when no one answers.
The dialog answers True (approve) or False.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from agent_tui.vocab.sampling import SamplingRequest
from agent_tui.vocab.terminal_text import inert


def request_lines(request: SamplingRequest) -> list[Text]:
    """The request as the panel shows it, one block per part; all server text made inert."""
    # Each piece of the server's text is made inert alone: a stray escape must not eat the panel's own words.
    lines = [Text.assemble("MCP server ", inert(request.server), " asks to use the model", style="bold")]
    if request.system_prompt:
        lines.append(Text.assemble(("System: ", "bold"), inert(request.system_prompt)))
    for message in request.messages:
        lines.append(Text.assemble((f"{message.role.capitalize()}: ", "bold"), inert(message.text)))
    limits = f"At most {request.max_tokens} tokens"
    if request.temperature is not None:
        limits += f" · temperature {request.temperature:g}"
    if request.stop_sequences:
        limits += " · stops at " + ", ".join(repr(inert(s)) for s in request.stop_sequences)
    lines.append(Text(limits, style="dim"))
    return lines


class SamplingScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "approve", priority=True),
        Binding("n", "answer(False)", "decline", priority=True),
        Binding("ctrl+d", "answer(False)", "decline", priority=True),
        Binding("escape", "answer(False)", "decline"),
    ]

    def __init__(self, request: SamplingRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="confirm"):
            for n, line in enumerate(request_lines(self.request)):
                yield Static(line, id=f"sampling-{n}")
            with Horizontal(id="sampling-buttons"):
                yield Button("Approve", id="approve", variant="primary")
                yield Button("Decline", id="decline")
            yield Static("y approve · n/esc decline", id="confirm-keys")

    def on_mount(self) -> None:
        self.query_one("#decline").focus()  # Enter on the default declines: approving spends tokens

    def action_answer(self, approve: bool) -> None:
        self.dismiss(approve)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "approve")
