"""Code fences highlighted by their stated language only — never guessed.

A language guess (Textual's ``MarkdownFence`` made one for a fence without a
language) imports every lexer module on its first call (~100 ms on the event
loop, measured mid-stream), later ones still run every lexer's
``analyse_text``, and it is often wrong for command output anyway. An unknown
name (``pyt`` while ``python`` is still streaming) makes Pygments scan plugin
entry points. So a fence's info string is resolved here against the built-in
aliases, once per name, and anything unknown is plain text.

Pygments compiles a lexer class's regular expressions when the class is first
instantiated (``RegexLexerMeta``): 30-100 ms for Python or CSS, which on the
event loop held up the keys typed while an answer's first fence streamed
(issue 32). :func:`warm_lexers` compiles the common ones in a thread once the
app is up. That compilation is not thread-safe (two threads compiling one
class can mix up its combined states), so the warm-up and the fences' renders
take turns on one lock.
"""

from __future__ import annotations

import threading
from functools import cache

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock
from rich.syntax import Syntax

PLAIN = "text"
COMMON_LANGUAGES = (
    *("python", "bash", "console", "json", "diff", "javascript", "typescript", "tsx", "yaml", "toml"),
    *("rust", "go", "html", "css", "sql", "c", "cpp", "java", "markdown", "ini", "dockerfile"),
)
"""What fences are labelled with most, most likely first: the languages :func:`warm_lexers` compiles."""
DARK_CODE_THEME, LIGHT_CODE_THEME = "monokai", "default"
"""The Pygments styles fences are drawn in, under a dark and a light app theme."""
_lexing = threading.Lock()
"""Held while Pygments may compile a lexer class: by the warm-up for each language, by a fence's render."""


@cache
def _aliases() -> frozenset[str]:
    from pygments.lexers import get_all_lexers

    return frozenset(alias for _, aliases, _, _ in get_all_lexers(plugins=False) for alias in aliases)


def fence_language(info: str | None) -> str:
    """The Pygments alias for a fence's info string (``python title=x`` -> ``python``), else ``text``."""
    name = (info or "").strip().partition(" ")[0].lower()
    return name if name and name in _aliases() else PLAIN


def warm_lexers() -> None:
    """Off the event loop: compile :data:`COMMON_LANGUAGES`' lexers and load the fences' styles.

    One language at a time under the lock, so a fence rendered meanwhile waits
    for one compilation at most.
    """
    from pygments.lexers import find_lexer_class_by_name
    from pygments.styles import get_style_by_name

    _aliases()
    for language in COMMON_LANGUAGES:
        lexer = find_lexer_class_by_name(language)
        with _lexing:
            lexer()  # ``RegexLexerMeta`` compiles the class's token definitions on its first instance
    for theme in (DARK_CODE_THEME, LIGHT_CODE_THEME):
        get_style_by_name(theme)


class StatedLanguageCodeBlock(CodeBlock):
    """Rich's code block with the stated-language rule; it wraps a line wider than the window."""

    @classmethod
    def create(cls, markdown, token) -> CodeBlock:  # type: ignore[no-untyped-def]
        return cls(fence_language(token.info), markdown.code_theme)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """Rich's render of the ``Syntax`` it yields, done here under the lock (its lexers instantiate in it)."""
        for syntax in super().__rich_console__(console, options):
            assert isinstance(syntax, Syntax)  # Rich's ``CodeBlock`` yields one, for its console to render
            with _lexing:
                segments = list(console.render(syntax, options))
            yield from segments
