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
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.markdown import Heading
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
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


class _RenderedOnce:
    """A renderable that keeps its last render per width.

    Textual renders a Static's Rich renderable twice when it appears: once to
    measure its height, once for its lines. A part freezes in the middle of a
    stream, where that second render of a few thousand characters of Markdown
    made the slowest frames (issue 32); the segments are the same both times.
    """

    def __init__(self, renderable: _Markdown) -> None:
        self._renderable = renderable
        self._rendered: tuple[int, list[Segment]] | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self._rendered is None or self._rendered[0] != options.max_width:
            self._rendered = (options.max_width, list(console.render(self._renderable, options)))
        yield from self._rendered[1]


class FrozenMarkdown(Static):
    """A finished part of a long answer: one widget however many blocks it holds."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.source = text
        self._parsed: tuple[str, _RenderedOnce] | None = None  # parsed once per code theme, not per frame

    def render(self) -> _RenderedOnce:
        code_theme = "monokai" if self.app.current_theme.dark else "default"
        if self._parsed is None or self._parsed[0] != code_theme:
            self._parsed = (code_theme, _RenderedOnce(_Markdown(self.source, code_theme=code_theme)))
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
    code block, a list or a table (a whole list is one block, so a very long list
    is cut only once it ends). The cut is the first such boundary at or after
    ``size``: a boundary stays one however the text goes on, so the cut does not
    depend on how much text there is when it is looked for. Parts streamed in any
    chunks are therefore the parts :func:`split_parts` makes of the whole answer,
    and reopening a session shows exactly what the stream showed (issue 32).

    Parsing costs time in the length parsed, so this parses a prefix as long as
    the cut needs (doubling it while no boundary turns up), and callers pass only
    the unfrozen tail: re-parsing the whole growing answer on every delta would be
    quadratic in its length. :class:`StreamedParts` also re-checks a tail over two
    parts long that found no cut only once it has grown by a quarter of itself.
    """
    if len(text) <= size:
        return -1
    window = size * 2
    while True:
        end = text.find("\n", window)
        prefix = text if end < 0 else text[: end + 1]  # complete lines through offset ``window``
        if starts := [s for s in _block_starts(prefix) if s >= size]:
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


class StreamedParts:
    """The parts a streamed answer freezes as it grows: those :func:`split_parts` makes of the whole answer."""

    def __init__(self, size: int = PART_CHARS, start: int = 0) -> None:
        self.size = size
        self.start = start  # where the unfrozen tail starts in the answer
        self._check_at = 0  # the tail's length at which to look for a cut again (see ``cut_point``)

    def freeze(self, text: str) -> list[str]:
        """The parts of ``text`` (the answer so far) finished since the last call, often none."""
        live = text[self.start :]
        parts: list[str] = []
        if len(live) < self._check_at:
            return parts
        while (cut := cut_point(live, self.size)) > 0:
            parts.append(live[:cut])
            live = live[cut:]
            self.start += cut
        # No boundary yet in a tail twice a part long: one long block (a fence, a list), looked at again
        # only once it has grown by a quarter, else each check would parse it all again. Shorter tails
        # are looked at on every call (~1 ms for 6 000 characters), so the parts on screen when a
        # typical answer ends are those ``split_parts`` makes of it.
        self._check_at = len(live) + max(self.size // 8, len(live) // 4) if len(live) > self.size * 2 else 0
        return parts

    @property
    def settled(self) -> bool:
        """Whether no look for a cut is put off: the parts so far are those of ``split_parts``."""
        return self._check_at == 0
