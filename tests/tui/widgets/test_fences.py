"""Fences are highlighted by their stated language; nothing asks Pygments to guess."""

from __future__ import annotations

import pygments.lexers
import pytest
from markdown_it import MarkdownIt
from rich.console import Console
from textual.app import App, ComposeResult
from textual.strip import Strip

from agent_tui.tui.widgets.fences import StatedLanguageCodeBlock, fence_language
from agent_tui.tui.widgets.live_markdown import MarkdownPart, _Markdown


@pytest.mark.parametrize(
    ("info", "language"),
    [
        ("python", "python"),
        ("Python title=x.py", "python"),
        ("sh", "sh"),
        ("", "text"),
        (None, "text"),
        ("pyt", "text"),
        ("no-such-language", "text"),
    ],
)
def test_fence_language_keeps_known_aliases_only(info: str | None, language: str) -> None:
    assert fence_language(info) == language


class _Host(App):
    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield MarkdownPart(self.source)


@pytest.fixture
def guesses(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = pygments.lexers.guess_lexer

    def recording(code: str, **options: object) -> object:
        seen.append(code)
        return real(code, **options)

    monkeypatch.setattr(pygments.lexers, "guess_lexer", recording)
    return seen


def _code_lines(app: App) -> list[Strip]:
    return app.query_one(MarkdownPart).render_lines(app.query_one(MarkdownPart).region.reset_offset)


async def test_unlabelled_and_half_streamed_fences_are_not_guessed(guesses) -> None:
    source = "```\n$ ls -la\ntotal 0\n```\n\n```pyt\nx = 1\n```\n\n```python\ndef f():\n    return 1\n```\n"
    async with _Host(source).run_test() as pilot:
        await pilot.pause()
        lines = [line.text.strip() for line in _code_lines(pilot.app)]
        code = ["$ ls -la", "total 0", "x = 1", "def f():", "return 1"]
        assert [line for line in lines if line in code] == code
    assert guesses == []


async def test_a_stated_language_is_still_highlighted(guesses) -> None:
    async with _Host("```python\ndef f():\n    return 1\n```\n").run_test() as pilot:
        await pilot.pause()
        line = next(line for line in _code_lines(pilot.app) if "def" in line.text)
        colours = {segment.style.color for segment in line if segment.text.strip() and segment.style}
        assert len(colours) > 1  # keyword, name... not one plain colour
    assert guesses == []


def test_finished_parts_use_the_same_rule() -> None:
    tokens = [t for t in MarkdownIt().parse("```pyt\nx\n```\n\n```python\ny\n```\n") if t.type == "fence"]

    class _Md:
        code_theme = "monokai"

    assert [StatedLanguageCodeBlock.create(_Md(), t).lexer_name for t in tokens] == ["text", "python"]
    assert _Markdown.elements["fence"] is StatedLanguageCodeBlock


def test_frozen_part_with_unlabelled_fence_renders_its_code() -> None:
    console = Console(width=40, record=True, color_system=None)
    console.print(_Markdown("```\nplain output line\n```"))
    assert "plain output line" in console.export_text()
