"""Long Markdown in parts: finished parts as one widget each, only the live tail as ``Markdown``.

Textual's ``Markdown`` mounts one widget per block, and the compositor visits
every widget on every frame, so a 100 KB answer (thousands of paragraphs) would
make each frame slower as it grows. Finished parts are therefore rendered by a
single :class:`FrozenMarkdown` (Rich's renderer, left-aligned headings); parts
are cut only between top-level blocks (see :func:`cut_point`).
"""

from __future__ import annotations

import re
from typing import ClassVar

from markdown_it import MarkdownIt
from rich.console import JustifyMethod
from rich.markdown import Heading
from rich.markdown import Markdown as RichMarkdown
from textual.widgets import Static

from agent_tui.tui.widgets.fences import StatedLanguageCodeBlock

PART_CHARS = 3_000


class _LeftHeading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = {f"h{n}": "left" for n in range(1, 7)}


class _Markdown(RichMarkdown):
    elements = {
        **RichMarkdown.elements,
        "heading_open": _LeftHeading,
        "fence": StatedLanguageCodeBlock,
        "code_block": StatedLanguageCodeBlock,
    }


class FrozenMarkdown(Static):
    """A finished part of a long answer: one widget however many blocks it holds."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.source = text
        self._parsed: tuple[str, _Markdown] | None = None  # parsed once per code theme, not per frame

    def render(self) -> _Markdown:
        code_theme = "monokai" if self.app.current_theme.dark else "default"
        if self._parsed is None or self._parsed[0] != code_theme:
            self._parsed = (code_theme, _Markdown(self.source, code_theme=code_theme))
        return self._parsed[1]


_BLOCKS = MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])
"""Block rules only (those of Rich's and Textual's parsers): where blocks start, not what is in them."""
_LINE_END = re.compile(r"\r\n?|\n")  # markdown-it's line breaks, after its normalisation


def _block_starts(text: str) -> list[int]:
    """Offsets in ``text`` where a top-level block starts on a line after a blank line.

    Only ``text``'s complete lines are parsed: whether a complete line starts a
    top-level block depends on it and the lines above, never on lines below, so
    these offsets hold for any text that goes on from ``text`` (a half-streamed
    line could still become a list item that continues the list above it).
    """
    starts = [0] + [m.end() for m in _LINE_END.finditer(text)]  # starts[-1]: the incomplete last line
    tokens = _BLOCKS.parse(text[: starts[-1]])
    lines = {t.map[0] for t in tokens if t.level == 0 and t.nesting >= 0 and t.map}
    return [starts[n] for n in sorted(lines) if n and not text[starts[n - 1] : starts[n]].strip()]


def cut_point(text: str, size: int = PART_CHARS) -> int:
    """Where to end the first part of ``text``, or -1 if it should not be cut yet.

    Parts are cut only between top-level blocks, after a blank line, as
    markdown-it parses them: never inside a fence (```, ~~~, ````), an indented
    code block or a list (a whole list is one block, so a very long list is cut
    only once it ends). The cut is the last such boundary in ``size // 2 ..
    size * 2``, else the first one after it.

    Parsing costs time in the length parsed, so this parses a prefix as long as
    the cut needs (doubling it while no boundary turns up), and callers pass only
    the unfrozen tail: re-parsing the whole growing answer on every delta would be
    quadratic in its length. ``AssistantText`` also re-checks a tail that found no
    cut only once it has grown by an eighth of a part or a quarter of itself.
    """
    if len(text) <= size:
        return -1
    window = size * 2
    while True:
        end = text.find("\n", window)
        prefix = text if end < 0 else text[: end + 1]  # complete lines through offset ``window``
        starts = [s for s in _block_starts(prefix) if s > size // 2]
        if before := [s for s in starts if s <= size * 2]:
            return before[-1]
        if starts:
            return starts[0]
        if end < 0:
            return -1
        window *= 2


def split_parts(text: str, size: int = PART_CHARS) -> list[str]:
    """``text`` in parts of roughly ``size`` characters, cut only where :func:`cut_point` allows."""
    parts: list[str] = []
    while (cut := cut_point(text, size)) > 0:
        parts.append(text[:cut])
        text = text[cut:]
    parts.append(text)
    return parts
