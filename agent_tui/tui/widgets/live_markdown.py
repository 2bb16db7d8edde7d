"""The live tail of an answer: Textual's ``Markdown``, appended to so it shows what a fresh render shows.

Textual's ``Markdown.append`` re-parses from the start of the last top-level
block it saw and takes every block above as final. Two cases broke that
(issue 32):

- after ``update`` (a widget made with text, as the tail is after a cut) it
  re-parsed from the text's last line only: a fence, list or table open there
  lost its start, its code showed as paragraphs and its closing fence opened a
  new block that swallowed what followed;
- the last line may be half-streamed: ``2`` after a loose numbered list is a
  paragraph that ends the list, ``2.`` continues it; Textual took the list as
  final and showed two lists.

:class:`LiveBlocks` keeps the line to re-parse from: the start of the last
top-level block that starts on a complete line. Whether a complete line starts
a top-level block depends on it and the lines above only, and every block
above such a start is finished (a setext underline or a table's delimiter row
changes the block they follow, which is then that last block itself).
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token
from textual.await_complete import AwaitComplete
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from agent_tui.tui.widgets.fences import StatedLanguageFence

PARSER = MarkdownIt("gfm-like")  # Textual's own default parser
"""Parsing builds fresh state each time: one parser serves every widget."""


class LiveBlocks:
    """Which part of a growing Markdown text to parse again: the blocks above ``line`` are final."""

    def __init__(self, parser: MarkdownIt = PARSER) -> None:
        self.parser = parser
        self.line = 0  # the first line of the last block that may still change
        self.offset = 0  # where that line starts in the text

    def parse(self, source: str) -> tuple[int, list[Token]]:
        """``source`` (the whole text so far) parsed from ``line``: that line, and the tokens (maps from it)."""
        tail = source[self.offset :]
        tokens = self.parser.parse(tail)
        first = self.line
        complete = tail.count("\n")  # lines 0 .. complete - 1 of the tail are whole
        last = max((t.map[0] for t in tokens if t.level == 0 and t.map and t.map[0] < complete), default=0)
        if last:
            at = 0
            for _ in range(last):
                at = tail.index("\n", at) + 1
            self.line += last
            self.offset += at
        return first, tokens


class AnswerMarkdown(Markdown):
    """Textual ``Markdown`` with stated-language fences (``fences``) and an ``append`` that stays right."""

    BLOCKS = {**Markdown.BLOCKS, "fence": StatedLanguageFence, "code_block": StatedLanguageFence}

    def __init__(self, markdown: str | None = None) -> None:
        super().__init__(markdown)
        self._live = LiveBlocks()

    def update(self, markdown: str) -> AwaitComplete:
        self._live = LiveBlocks()  # the next append parses it all again, once
        return super().update(markdown)

    def append(self, markdown: str) -> AwaitComplete:
        self._markdown = self.source + markdown

        async def await_append() -> None:
            async with self.lock:
                start, tokens = self._live.parse(self._markdown)
                new = list(self._parse_markdown(tokens))
                headers = any(t.type == "heading_open" for t in tokens)
                for block in new:
                    block.source_range = (block.source_range[0] + start, block.source_range[1] + start)
                old = [c for c in self.children if isinstance(c, MarkdownBlock) and c.source_range[0] >= start]
                with self.app.batch_update():
                    if len(old) > 1:
                        await self.remove_children(old[1:])
                    if old and new:  # the first one in place (a paragraph's text, a fence's code, a table's rows)
                        old[0].source_range = new[0].source_range
                        try:
                            await old[0]._update_from_block(new[0])
                        except IndexError:  # as Textual's own append: mount it instead
                            await old[0].remove()
                        else:
                            new = new[1:]
                    elif old:
                        await old[0].remove()
                    if new:
                        await self.mount_all(new)
                if headers:
                    self._table_of_contents = None
                    self.post_message(Markdown.TableOfContentsUpdated(self, self.table_of_contents).set_sender(self))

        return AwaitComplete(await_append())
