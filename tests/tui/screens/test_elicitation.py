"""A server's question reaches the screen inert: its control sequences and bidi overrides do not."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Static

from agent_tui.tui.screens.elicitation import ElicitationScreen
from agent_tui.vocab.elicitation import ElicitationRequest

HOSTILE = "Pay \x1b[8mhidden\x1b[0m now \u202eevil\u202c"


async def test_the_servers_words_are_shown_without_control_sequences() -> None:
    schema = {
        "type": "object",
        "properties": {"who": {"type": "string", "title": "Name\x1b]0;t\x07", "description": HOSTILE}},
    }
    request = ElicitationRequest(server="srv", message=HOSTILE, schema=schema)
    app: App[None] = App()
    async with app.run_test() as pilot:
        app.push_screen(ElicitationScreen(request))
        await pilot.pause()
        shown = "\n".join(str(w.render()) for w in app.screen.query(Static))
    assert "Pay" in shown and "hidden" in shown and "evil" in shown
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
