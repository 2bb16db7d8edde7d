"""An answer's Markdown on screen: one Static per part, each block rendered once by Rich.

Textual's ``Markdown`` mounts a widget per block (a list item is ~4), and while
an answer streams every frame changes its height: Textual then re-arranges
and re-renders every one of them, which made the frames that delayed
keystrokes (issue 32). A :class:`MarkdownPart` is one widget however many
blocks it holds. It renders its text as *chunks*: the text between top-level
block starts after a blank line (``markdown_parts.BlockStarts``), where a cut
changes no block. Each chunk is rendered once per width, so a frame re-renders
only the last, growing chunk. The chunks are joined as Rich joins blocks (a
blank line, but after a rule), so the parts of an answer show exactly what one
Rich render of the whole answer shows, and what the stream showed last is what
reopening the session shows.
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar

from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.markdown import Heading
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from textual.widgets import Static

from agent_tui.tui.widgets.fences import DARK_CODE_THEME, LIGHT_CODE_THEME, StatedLanguageCodeBlock
from agent_tui.tui.widgets.markdown_parts import BlockStarts


class _LeftHeading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = {f"h{n}": "left" for n in range(1, 7)}


class _Markdown(RichMarkdown):
    elements = {
        **RichMarkdown.elements,
        "heading_open": _LeftHeading,
        "fence": StatedLanguageCodeBlock,
        "code_block": StatedLanguageCodeBlock,
    }
    _NOT_ELEMENTS = frozenset({"text", "hardbreak", "softbreak", "link_open", "link_close", "html_inline"})

    @property
    def separates_itself(self) -> bool:
        """Whether Rich's blank line above the first block depends on that block alone, not on the one above.

        Rich puts a blank line before a top-level block if the last element it
        left had ``new_line``: the block above, unless elements inside this one
        (a list's items, a quote's paragraphs, a table's cells) were left first.
        The same walk over the tokens as ``Markdown.__rich_console__``.
        """
        for token in self._flatten_tokens(self.parsed):
            styled = token.tag in self.inlines and token.type not in ("fence", "code_block")
            if token.nesting <= 0 and not styled and token.type not in self._NOT_ELEMENTS:
                return token.level > 0  # the first element left: inside the first block, or that block
        return False


class _Chunk:
    """One chunk's Markdown, parsed once, and its last render (the width it was for, its segments)."""

    def __init__(self, text: str, code_theme: str) -> None:
        self.text = text
        self.markdown = _Markdown(text, code_theme=code_theme)
        self.rendered: tuple[int, list[Segment]] | None = None

    @property
    def blocks(self) -> bool:
        """Whether it holds a block (a link definition alone is none): Rich separates blocks only."""
        return bool(self.markdown.parsed)

    @cached_property
    def separates_itself(self) -> bool:
        return self.markdown.separates_itself

    @property
    def ends_in_rule(self) -> bool:
        """Rich puts no blank line after a rule (``HorizontalRule.new_line``), after any other block one."""
        return self.markdown.parsed[-1].type == "hr"

    def render(self, console: Console, options: ConsoleOptions) -> list[Segment]:
        if self.rendered is None or self.rendered[0] != options.max_width:
            self.rendered = (options.max_width, list(console.render(self.markdown, options)))
        return self.rendered[1]


class _Chunks:
    """A Rich renderable: the chunks of a text in order, with the blank lines Rich puts between them.

    Textual renders a Static twice when its text changes (once to measure its
    height, once for its lines); both passes reuse each chunk's render.
    """

    def __init__(self, chunks: list[_Chunk], lead: bool) -> None:
        self.chunks = chunks
        self.lead = lead

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        blank = self.lead
        for chunk in self.chunks:
            if not chunk.blocks:
                continue
            if blank and not chunk.separates_itself:
                yield Segment.line()
            yield from chunk.render(console, options)
            blank = not chunk.ends_in_rule


class MarkdownChunks:
    """A text's chunks as it changes, each parsed once and rendered once per width (and code theme)."""

    def __init__(self) -> None:
        self._starts = BlockStarts()
        self._chunks: dict[str, _Chunk] = {}  # by text, for ``_code_theme``
        self._code_theme = ""

    def renderable(self, text: str, code_theme: str, lead: bool) -> _Chunks:
        """``text`` to render; ``lead``: whether a blank line comes first (see :class:`MarkdownPart`)."""
        if code_theme != self._code_theme:
            self._code_theme, self._chunks = code_theme, {}
        starts = self._starts.of(text)
        texts = [text[start:end] for start, end in zip(starts, [*starts[1:], len(text)], strict=True)]
        chunks = [self._chunks.get(chunk) or _Chunk(chunk, code_theme) for chunk in texts]
        self._chunks = {chunk.text: chunk for chunk in chunks}  # those shown: a growing chunk's older texts go
        return _Chunks(chunks, lead)


class MarkdownPart(Static):
    """A part of an answer (see ``markdown_parts``): finished, or the live tail that :meth:`show` grows.

    ``lead``: whether a blank line comes first, as Rich puts one between the
    last block of the part above and this part's first (``blank_after``).
    """

    def __init__(self, text: str, *, lead: bool = False) -> None:
        super().__init__()
        self.source = text
        self.lead = lead
        self._chunks = MarkdownChunks()

    def show(self, text: str) -> None:
        """Show ``text`` (the whole part) from the next frame on.

        A layout re-arranges the whole screen (10-30 ms a frame on the dev VM), so it is asked
        for only when the part's height changes; text that grows within its last line repaints
        the part alone. A model streaming tens of tokens a second adds a line every few repaints.
        """
        if text != self.source:
            self.source = text
            self.refresh(layout=self._lines_at(self.content_size.width) != self.content_size.height)

    def _lines_at(self, width: int) -> int | None:
        """The part's height at ``width``, as Textual measures a Rich renderable (None: not laid out yet).

        Its chunks render once per width, so the frame that follows reuses this render."""
        if width <= 0 or not self.is_mounted:
            return None
        options = self.app.console_options.update_width(width).update(highlight=False)
        return sum(text.count("\n") for text, _, _ in self.app.console.render(self.render(), options))

    def render(self) -> _Chunks:
        code_theme = DARK_CODE_THEME if self.app.current_theme.dark else LIGHT_CODE_THEME
        return self._chunks.renderable(self.source, code_theme, self.lead)
