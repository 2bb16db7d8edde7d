"""Code fences highlighted by their stated language only — never guessed.

A language guess (Textual's ``MarkdownFence`` made one for a fence without a
language) imports every lexer module on its first call (~100 ms on the event
loop, measured mid-stream), later ones still run every lexer's
``analyse_text``, and it is often wrong for command output anyway. An unknown
name (``pyt`` while ``python`` is still streaming) makes Pygments scan plugin
entry points. So a fence's info string is resolved here against the built-in
aliases, once per name, and anything unknown is plain text.
"""

from __future__ import annotations

from functools import cache

from rich.markdown import CodeBlock

PLAIN = "text"


@cache
def _aliases() -> frozenset[str]:
    from pygments.lexers import get_all_lexers

    return frozenset(alias for _, aliases, _, _ in get_all_lexers(plugins=False) for alias in aliases)


def fence_language(info: str | None) -> str:
    """The Pygments alias for a fence's info string (``python title=x`` -> ``python``), else ``text``."""
    name = (info or "").strip().partition(" ")[0].lower()
    return name if name and name in _aliases() else PLAIN


class StatedLanguageCodeBlock(CodeBlock):
    """Rich's code block with the stated-language rule; it wraps a line wider than the window."""

    @classmethod
    def create(cls, markdown, token) -> CodeBlock:  # type: ignore[no-untyped-def]
        return cls(fence_language(token.info), markdown.code_theme)
