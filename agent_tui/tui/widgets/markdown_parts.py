"""Long Markdown in parts: finished parts as one widget each, only the live tail as ``Markdown``.

Textual's ``Markdown`` mounts one widget per block, and the compositor visits
every widget on every frame, so a 100 KB answer (thousands of paragraphs) would
make each frame slower as it grows. Finished parts are therefore rendered by a
single :class:`FrozenMarkdown` (Rich's renderer, left-aligned headings); parts
are cut only at paragraph breaks outside code fences.
"""

from __future__ import annotations

from typing import ClassVar

from rich.markdown import Heading
from rich.markdown import Markdown as RichMarkdown
from rich.console import JustifyMethod
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


def cut_point(text: str, size: int = PART_CHARS) -> int:
    """Where to end the first part of ``text`` (after a ``\\n\\n``), or -1 if it should not be cut yet."""
    if len(text) <= size:
        return -1
    cut = text.rfind("\n\n", size // 2, size * 2)
    while cut >= 0 and text[:cut].count("```") % 2:
        cut = text.rfind("\n\n", size // 2, cut)
    if cut < 0:  # one very long fence or paragraph: the first clean break after it
        cut = text.find("\n\n", size * 2)
        while cut >= 0 and text[:cut].count("```") % 2:
            cut = text.find("\n\n", cut + 2)
    return -1 if cut < 0 else cut + 2


def split_parts(text: str, size: int = PART_CHARS) -> list[str]:
    """``text`` in parts of roughly ``size`` characters, cut only where :func:`cut_point` allows."""
    parts: list[str] = []
    while (cut := cut_point(text, size)) > 0:
        parts.append(text[:cut])
        text = text[cut:]
    parts.append(text)
    return parts
