"""Fences are highlighted by their stated language; nothing asks Pygments to guess; the common
languages' lexers are compiled off the event loop once the app is up."""

from __future__ import annotations

import pygments.lexers
import pytest
from markdown_it import MarkdownIt
from pygments.lexer import RegexLexer
from rich.console import Console
from textual.app import App, ComposeResult
from textual.strip import Strip

from agent_tui.tui.app import StartMode
from agent_tui.tui.widgets.fences import COMMON_LANGUAGES, StatedLanguageCodeBlock, fence_language, warm_lexers
from agent_tui.tui.widgets.live_markdown import MarkdownPart, _Markdown
from tests.tui.conftest import until


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


def _common_regex_lexers() -> list[type[RegexLexer]]:
    lexers = [pygments.lexers.find_lexer_class_by_name(language) for language in COMMON_LANGUAGES]
    return [lexer for lexer in lexers if issubclass(lexer, RegexLexer)]


def _compiled(lexer: type[RegexLexer]) -> bool:
    return "_tokens" in lexer.__dict__  # ``RegexLexerMeta`` sets it on the class's first instance


@pytest.fixture
def uncompiled(monkeypatch) -> list[type[RegexLexer]]:
    """The common languages' regex lexers as if none had been used yet in this process."""
    lexers = _common_regex_lexers()
    for lexer in lexers:
        if _compiled(lexer):
            monkeypatch.delattr(lexer, "_tokens")
    assert len(lexers) > 10 and not any(_compiled(lexer) for lexer in lexers)
    return lexers


def test_warm_lexers_compiles_the_common_languages(uncompiled) -> None:
    warm_lexers()
    assert all(_compiled(lexer) for lexer in uncompiled)


async def test_the_app_compiles_them_in_a_thread_once_it_is_up(uncompiled, make_app) -> None:
    async with make_app(StartMode()).run_test() as pilot:
        await until(pilot, lambda: all(_compiled(lexer) for lexer in uncompiled), timeout=10)
