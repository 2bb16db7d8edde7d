"""Model text, reasoning and a file the ``read`` tool returned reach the screen without control
sequences: end to end over the real runtime and the fake provider (LiteLLM over HTTP)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from agent_tui.testing.fake_provider import ScriptToolCall, Turn
from agent_tui.tui.widgets.block_widgets import AssistantText, ReasoningView
from agent_tui.tui.widgets.tool_block import ToolCallView

from .test_app import until
from .test_app_provider import app, idle, provider, runtime  # noqa: F401 (fixtures)

TITLE = "\x1b]0;PWNED\x07"
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4K\x07"
HOSTILE = (
    f"{TITLE}{CLIPBOARD}\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\x1b[2J\x1b[H\x1bP1$qm\x1b\\\x08\x9b5A"
)


def shown(app) -> list[str]:
    """Every text the transcript's widgets render (Statics and the answers' Markdown sources)."""
    statics = [str(widget.render()) for widget in app.query(Static)]
    return statics + [widget.source for widget in app.query(AssistantText)]


def written(app) -> str:
    """What Textual would write to the terminal for the whole screen now."""
    return app.screen._compositor.render_full_update().render_segments(app.console)


async def test_no_control_sequence_from_the_model_or_a_file_reaches_the_screen(provider, app, workdir: Path) -> None:  # noqa: F811
    (workdir / "evil.txt").write_text(f"first line {HOSTILE} file end\n\x1b[31mred\x1b[0m\n")
    provider.add(
        Turn(
            reasoning=f"thinking {HOSTILE} hard",
            text=f"Reading {HOSTILE} it.",
            tool_calls=[ScriptToolCall(id="call_1", name="read", arguments={"path": "evil.txt"})],
        ),
        Turn(text=f"Done {HOSTILE} here.", chunks=23),  # sequences split across deltas
    )
    async with app.run_test() as pilot:
        await pilot.press(*"read evil", "enter")
        await idle(pilot, app)
        await until(pilot, lambda: app.query(ToolCallView) and app.query_one(ToolCallView).has_class("-ok"), timeout=10)
        assert "\x1b" in app.query_one(ToolCallView).block.output  # the model still reads what the file holds
        texts = shown(app)
        assert any("file end" in text for text in texts), texts
        assert any("thinking" in text for text in texts), texts
        assert [w.source for w in app.query(AssistantText)] == [
            "Reading link5A it.",
            "Done link5A here.",
        ]  # 8-bit CSI: introducer gone, "5A" inert
        for text in texts:
            assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text, repr(text)
            assert "PWNED" not in text and "evil.example" not in text, repr(text)
        for reasoning in app.query(ReasoningView):
            reasoning.query_one("Collapsible").collapsed = False
        app.query_one(ToolCallView).query_one("Collapsible").collapsed = False
        await pilot.pause()
        screen = written(app)
        assert "file end" in screen and "thinking" in screen
        assert "\x1b]" not in screen and "\x1bP" not in screen and "\x07" not in screen, repr(screen)
        assert "PWNED" not in screen
        red = [
            segment.style
            for strip in app.screen._compositor.render_strips()
            for segment in strip
            if segment.text.strip() == "red"
        ]
        shade = red[0].color.get_truecolor() if red and red[0].color else None  # the file's SGR red, drawn by Rich
        assert shade is not None and shade.red > 2 * max(shade.green, shade.blue), red


def test_a_session_title_is_shown_without_control_sequences() -> None:
    """A title is any text a prompt or an API rename gave; the status bar and the picker show it inert."""
    from agent_tui.tui.session_title import session_title

    assert session_title(f"fix {HOSTILE} it") == "fix link5A it"
    assert session_title(None, f"last {TITLE}message") == "last message"
