"""Long Markdown in parts, cut only between top-level blocks (see :func:`cut_point`).

Each part is one widget (``live_markdown.MarkdownPart``), and only the last,
live one changes while an answer streams, so a frame's work does not grow with
the answer. The same boundaries split a part into the chunks it renders one
by one (:class:`BlockStarts`).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

PART_CHARS = 3_000


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


class BlockStarts:
    """The offsets where :func:`_block_starts` finds blocks in a text that grows, parsed past the last one only.

    A start found stays one however the text goes on, and a top-level block
    start is a fresh start for the parser, so the starts of a grown text are
    those known plus those of the text from the last one: the same as a parse
    of the whole text, at the cost of the last block.
    """

    def __init__(self) -> None:
        self._text = ""
        self._starts = [0]

    def of(self, text: str) -> list[int]:
        """``0`` and every start in ``text``, in order."""
        if not text.startswith(self._text):  # not grown (a live part cut back to a finished one): parse anew
            self._starts = [0]
        last = self._starts[-1]
        self._starts += [last + start for start in _block_starts(text[last:]) if start]
        self._text = text
        return list(self._starts)


def blank_after(text: str, before: bool) -> bool:
    """Whether Rich puts a blank line after ``text``'s last block: after any but a rule.

    ``before``: whether it would after the text above ``text``, which is the answer when ``text``
    holds no block (a link definition alone).
    """
    tokens = _BLOCKS.parse(text)
    return tokens[-1].type != "hr" if tokens else before
