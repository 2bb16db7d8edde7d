"""Live markdown is always right: an answer streamed in any chunks, cut into frozen parts as it
grows, shows the same blocks as a fresh render of the whole text (issue 32)."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderResult
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget

from agent_tui.tui.block_keys import BlockKey, BlockKind
from agent_tui.tui.transcript_blocks import TextBlock
from agent_tui.tui.widgets.block_widgets import AssistantText
from agent_tui.tui.widgets.live_markdown import MarkdownChunks, MarkdownPart, _Markdown
from agent_tui.tui.widgets.markdown_parts import StreamedParts, blank_after, split_parts
from agent_tui.vocab.clock import ManualClock

SIZE = 100  # a small part size, so a few hundred characters of answer cross it several times
PARSERS = {  # the live tail's (Textual's) and the frozen parts' (Rich's)
    "textual": MarkdownIt("gfm-like"),
    "rich": MarkdownIt().enable("strikethrough").enable("table"),
}

# --- random answers ---------------------------------------------------------------------------

WORDS = st.sampled_from(
    ["the", "change", "keeps", "`x`", "``` in prose", "a|b", "*one*", "**two**", "~~~", "1.", "-", "#", "word"]
)
LANGUAGES = st.sampled_from(["python", "js", "bash", "", "text title=x", "md", "diff"])


@st.composite
def sentence(draw: st.DrawFn) -> str:
    return " ".join(draw(st.lists(WORDS, min_size=1, max_size=12))).replace("\n", " ")


@st.composite
def paragraph(draw: st.DrawFn) -> str:
    lines = draw(st.lists(sentence(), min_size=1, max_size=4))
    text = "\n".join(line.lstrip("-#1.~`*| ") or "word" for line in lines)
    underline = draw(st.sampled_from(["", "", "", "\n---", "\n==="]))  # a setext heading now and then
    return text + underline


@st.composite
def heading(draw: st.DrawFn) -> str:
    return "#" * draw(st.integers(1, 4)) + " " + draw(sentence())


@st.composite
def fence(draw: st.DrawFn, last: bool = False) -> str:
    char = draw(st.sampled_from("`~"))
    width = draw(st.integers(3, 5))
    indent = " " * draw(st.integers(0, 3))
    info = draw(st.sampled_from(["", " "])) + draw(LANGUAGES)
    body: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["code", "code", "blank", "shorter", "other", "indented"]))
        if kind == "code":
            body.append(draw(st.sampled_from(["x = 1", "print(x)", "  return y", "- not a list", "| a | b |"])))
        elif kind == "blank":
            body.append("")
        elif kind == "shorter":  # a shorter run of the same fence character never closes it
            body.append(char * draw(st.integers(1, width - 1)) + draw(st.sampled_from(["", "js", " "])))
        elif kind == "other":  # the other fence character, any length
            body.append(("~" if char == "`" else "`") * draw(st.integers(3, 6)))
        else:
            body.append("    indented = True")
    close = indent[: draw(st.integers(0, 3))] + char * (width + draw(st.integers(0, 2)))
    closed = not last or draw(st.booleans())
    return "\n".join([indent + char * width + info, *body, *([close] if closed else [])])


@st.composite
def bullet_list(draw: st.DrawFn) -> str:
    numbered = draw(st.booleans())
    marker = draw(st.sampled_from(["1.", "1)"] if numbered else ["-", "*", "+"]))
    items: list[str] = []
    for n in range(draw(st.integers(1, 6))):
        mark = f"{n + 1}{marker[-1]}" if numbered else marker
        item = f"{mark} {draw(sentence())}"
        pad = " " * (len(mark) + 1)
        for _ in range(draw(st.integers(0, 2))):
            sub = draw(st.sampled_from(["nested", "nested", "continued", "fence"]))
            gap = draw(st.sampled_from(["\n", "\n\n"]))
            if sub == "nested":
                item += f"{gap}{pad}- {draw(sentence())}"
            elif sub == "continued":
                item += f"{gap}{pad}{draw(sentence()).lstrip('-#1.~`*| ') or 'word'}"
            else:
                item += gap + "\n".join(pad + line if line else "" for line in draw(fence()).split("\n"))
        items.append(item)
    gaps = [draw(st.sampled_from(["\n", "\n\n"])) for _ in items]
    return "".join(item + gap for item, gap in zip(items, gaps, strict=True)).rstrip("\n")


@st.composite
def table(draw: st.DrawFn) -> str:
    columns = draw(st.integers(1, 4))
    rows = [
        "| " + " | ".join(draw(st.sampled_from(["a", "bb", "`c`", "1.", "- d"])) for _ in range(columns)) + " |"
        for _ in range(draw(st.integers(0, 8)))
    ]
    head = "| " + " | ".join(f"h{n}" for n in range(columns)) + " |"
    return "\n".join([head, "|" + "---|" * columns, *rows])


BLOCK = st.one_of(paragraph(), paragraph(), heading(), fence(), bullet_list(), table(), st.just("---"))


@st.composite
def answer(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(BLOCK, min_size=4, max_size=40))
    if draw(st.booleans()):
        blocks.append(draw(fence(last=True)))  # the answer may end inside an unclosed fence
    text = blocks[0]
    for block in blocks[1:]:
        text += draw(st.sampled_from(["\n\n", "\n\n", "\n", "\n\n\n"])) + block
    return text + draw(st.sampled_from(["", "\n", "\n\n"]))


@st.composite
def chunks(draw: st.DrawFn, text: str) -> list[str]:
    out: list[str] = []
    at = 0
    while at < len(text):
        size = draw(st.one_of(st.integers(1, 8), st.integers(1, 300)))
        out.append(text[at : at + size])
        at += size
    return out


# --- what the screen shows --------------------------------------------------------------------

WIDTH = 70
CONSOLE = Console(width=WIDTH, file=io.StringIO(), color_system="truecolor")


def lines(renderable: ConsoleRenderable) -> list[list[Segment]]:
    return CONSOLE.render_lines(renderable, CONSOLE.options, pad=False)


def stream(pieces: list[str], size: int = SIZE) -> tuple[list[str], list[list[Segment]], bool]:
    """What ``AssistantText`` shows after streaming ``pieces``: its parts (finished ones, then the
    live tail), their lines as each part's chunks render them, and whether no cut was put off.

    As on screen, the live part is rendered after every piece (its chunks' renders are kept), it
    becomes the first of the parts that finish, and the rest go on in new parts."""
    cutter = StreamedParts(size)
    parts = [""]
    chunks = [MarkdownChunks()]
    text = ""
    for piece in pieces:
        text += piece
        if finished := cutter.freeze(text):
            parts[-1:] = [*finished, text[cutter.start :]]
            chunks += [MarkdownChunks() for _ in finished]
        else:
            parts[-1] = text[cutter.start :]
        lines(chunks[-1].renderable(parts[-1], "monokai", lead=False))  # a frame while streaming
    shown: list[list[Segment]] = []
    lead = False
    for part, chunker in zip(parts, chunks, strict=True):
        shown += lines(chunker.renderable(part, "monokai", lead))
        lead = blank_after(part, lead)
    return parts, shown, cutter.settled


def rendered(parts: list[str], parser: MarkdownIt) -> list[tuple[object, ...]]:
    """Every token of every part, as a renderer sees it, with source lines counted across parts."""
    out: list[tuple[object, ...]] = []
    line = 0
    for part in parts:
        for t in _flat(parser.parse(part)):
            where = tuple(n + line for n in t.map) if t.map else None
            out.append((t.type, t.tag, t.level, t.info, t.markup, t.content, where))
        line += part.count("\n")
    return out


def _flat(tokens: list[Token]) -> list[Token]:
    return [t for token in tokens for t in [token, *(_flat(token.children) if token.children else [])]]


def assert_shows_as_whole(parts: list[str], text: str) -> None:
    assert "".join(parts) == text
    for parser in PARSERS.values():
        assert rendered(parts, parser) == rendered([text], parser)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_a_streamed_answer_shows_what_a_fresh_render_of_it_shows(data: st.DataObject) -> None:
    text = data.draw(answer())
    parts, shown, settled = stream(data.draw(chunks(text)))
    if settled:  # (a cut put off in a long block is made when the text next grows, not at the end)
        assert parts == split_parts(text, SIZE)  # the last frame while streaming is what reopening shows
    assert_shows_as_whole(parts, text)  # and the parts together show the answer as one render would:
    assert shown == lines(_Markdown(text, code_theme="monokai"))  # line for line, style for style


# --- on screen: a streamed AssistantText against a reopened one ---------------------------------

LONG = (
    "Intro paragraph with some words about the change.\n\n"
    + "".join(f"{n}. step {n}, with a few words to it\n\n" for n in range(1, 13))
    + "```python\n"
    + "".join(f"x{n} = {n}\n\n" for n in range(30))
    + "```\n\nAfter the fence, *emphasis* and `code`.\n\n"
    + "| a | b |\n|---|---|\n"
    + "".join(f"| {n} | {n * n} |\n" for n in range(12))
    + "\n- one\n\n  - nested\n\n- two\n\n"
    + "~~~~\n```js\nlet y = 2;\n```\n~~~~\n\nThe end."
)


class _Host(App[None]):
    def __init__(self, widgets: list[Widget]) -> None:
        super().__init__()
        self.widgets = widgets

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield from self.widgets


def _text_block(text: str, *, open: bool) -> TextBlock:
    block = TextBlock(key=BlockKey(BlockKind.TEXT, "m", 0), seq=1, open=open, live=open)
    if text:
        block.append(text)
    return block


def shown(widget: AssistantText) -> list[tuple[object, ...]]:
    """What the widget shows: each part's text, height and rendered lines."""
    return [
        (part.source, part.region.height, [strip.text for strip in part.render_lines(part.region.reset_offset)])
        for part in widget.query_children(MarkdownPart)
    ]


@pytest.mark.parametrize("step", [1, 7, 61, 301])
async def test_streamed_answer_on_screen_equals_the_reopened_one_and_does_not_jump_at_the_end(
    monkeypatch: pytest.MonkeyPatch, step: int
) -> None:
    monkeypatch.setattr(AssistantText, "PART_CHARS", SIZE)
    streamed = AssistantText(_text_block("", open=True), ManualClock())
    reopened = AssistantText(_text_block(LONG, open=False), ManualClock())
    async with _Host([streamed, reopened]).run_test(size=(100, 50)) as pilot:
        for start in range(0, len(LONG), step):
            streamed.block.append(LONG[start : start + step])
            streamed.block.touch()
            await streamed.sync()
        await pilot.pause()  # the last live frame
        last_frame, height = shown(streamed), streamed.region.height
        streamed.block.open = False  # the answer ends
        streamed.block.touch()
        await streamed.sync()
        await pilot.pause()
        assert streamed.source == reopened.source == LONG
        assert shown(streamed) == last_frame and streamed.region.height == height  # no jump at the end
        assert shown(streamed) == shown(reopened)
        assert len(shown(streamed)) > 3 and all(lines for _, _, lines in shown(streamed))


async def test_a_part_renders_each_chunk_once_for_height_and_lines_and_growing_renders_the_last_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual measures a Static's height and then renders its lines: one render of each chunk serves
    both, and a chunk above the last one is not rendered again while the part grows."""
    chunks = ["A paragraph of words.\n\n", "```python\nx = 1\n```\n\n", "- a\n- b\n\n", "The last\n"]
    text = "".join(chunks)
    height = len(Console(width=60).render_lines(_Markdown(text), pad=False))
    renders: list[tuple[str, int]] = []
    real = _Markdown.__rich_console__

    def counted(self: _Markdown, console: Console, options: ConsoleOptions) -> RenderResult:
        renders.append((self.markup, options.max_width))
        yield from real(self, console, options)

    monkeypatch.setattr(_Markdown, "__rich_console__", counted)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield MarkdownPart(text)

    async with Host().run_test(size=(60, 40)) as pilot:
        part = pilot.app.query_one(MarkdownPart)
        await pilot.pause()
        assert part.region.height == height  # measured and shown, as one render of the whole text
        assert sorted(renders) == sorted((chunk, 60) for chunk in chunks)  # once each
        renders.clear()
        part.show(text + "paragraph grows.")
        await pilot.pause()
        assert renders == [("The last\nparagraph grows.", 60)]
        renders.clear()
        await pilot.resize_terminal(40, 40)  # a new width renders every chunk again, once
        await pilot.pause()
        assert sorted(renders) == sorted((chunk, 40) for chunk in [*chunks[:-1], "The last\nparagraph grows."])


async def test_a_part_asks_for_a_layout_only_when_its_height_changes() -> None:
    """A layout re-arranges the whole screen: text growing within the last line repaints the part
    alone (and shows), a new line re-arranges (and the part grows by it)."""
    layouts: list[bool] = []

    class Counted(MarkdownPart):
        def refresh(self, *regions: object, layout: bool = False, **kwargs: object) -> Counted:  # type: ignore[override]
            layouts.append(layout)
            return super().refresh(*regions, layout=layout, **kwargs)  # type: ignore[arg-type]

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Counted("First paragraph.\n\nThe last")

    async with Host().run_test(size=(60, 20)) as pilot:
        part = pilot.app.query_one(Counted)
        await pilot.pause()
        assert part.region.height == 3
        layouts.clear()
        part.show("First paragraph.\n\nThe last one grows")
        await pilot.pause()
        assert layouts == [False]
        assert part.region.height == 3
        assert "The last one grows" in part.render_lines(part.region.reset_offset)[2].text
        layouts.clear()
        part.show("First paragraph.\n\nThe last one grows\n\nA new paragraph")
        await pilot.pause()
        assert layouts[0] is True
        assert part.region.height == 5
        assert "A new paragraph" in part.render_lines(part.region.reset_offset)[4].text
