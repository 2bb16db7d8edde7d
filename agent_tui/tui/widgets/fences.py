"""Code fences highlighted by their stated language only — never guessed.

Textual's ``MarkdownFence`` asks Pygments to *guess* the language of a fence
without one. The first guess imports every lexer module (~100 ms on the event
loop, measured mid-stream), and later guesses still run every lexer's
``analyse_text``; the guess is often wrong for command output anyway. An
unknown name (``pyt`` while ``python`` is still streaming) makes Pygments scan
plugin entry points. So a fence's info string is resolved here against the
built-in aliases, once per name, and anything unknown is plain text.
"""

from __future__ import annotations

from functools import cache

from rich.markdown import CodeBlock
from textual.widgets.markdown import MarkdownFence

PLAIN = "text"


@cache
def _aliases() -> frozenset[str]:
    from pygments.lexers import get_all_lexers

    return frozenset(alias for _, aliases, _, _ in get_all_lexers(plugins=False) for alias in aliases)


def fence_language(info: str | None) -> str:
    """The Pygments alias for a fence's info string (``python title=x`` -> ``python``), else ``text``."""
    name = (info or "").strip().partition(" ")[0].lower()
    return name if name and name in _aliases() else PLAIN


class StatedLanguageFence(MarkdownFence):
    """Long code lines wrap to the window, as in the finished parts (Rich wraps its code blocks):
    Textual's fence scrolls sideways with its scrollbar hidden, so the rest of a line was clipped
    with nothing to say so."""

    DEFAULT_CSS = """
    StatedLanguageFence {
        overflow: hidden hidden;
        & > Label { width: 1fr; text-wrap: wrap; }
    }
    """

    @property
    def allow_horizontal_scroll(self) -> bool:
        return False

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False):  # type: ignore[override]
        return super().highlight(code, fence_language(language), ansi=ansi, dark=dark)


class StatedLanguageCodeBlock(CodeBlock):
    """Rich's code block (finished parts) with the same language rule."""

    @classmethod
    def create(cls, markdown, token) -> CodeBlock:  # type: ignore[no-untyped-def]
        return cls(fence_language(token.info), markdown.code_theme)
