"""Where a long answer is cut into parts: only between top-level blocks."""

from __future__ import annotations

from markdown_it import MarkdownIt

from agent_tui.tui.widgets.markdown_parts import BlockStarts, cut_point, split_parts

SIZE = 200
PROSE = "Some words about the change, " * 3 + "and why.\n\n"  # ~100 characters, one paragraph
_PARSER = MarkdownIt("commonmark").enable("table")


def blocks(text: str) -> list[tuple[str, str]]:
    """The top-level blocks as the renderers see them: type, and the code of code blocks."""
    tokens = _PARSER.parse(text)
    return [
        (t.type, t.content if t.type in ("fence", "code_block") else "")
        for t in tokens
        if t.level == 0 and t.nesting >= 0
    ]


def assert_cut_between_blocks(text: str) -> list[str]:
    parts = split_parts(text, SIZE)
    assert len(parts) > 1 and "".join(parts) == text
    assert [b for part in parts for b in blocks(part)] == blocks(text)  # no block is split across parts
    return parts


def test_a_backtick_fence_is_not_cut_when_prose_mentions_backticks() -> None:
    fence = "```python\n" + "x = 1\n\n" * 40 + "```\n\n"
    text = "A fence opens with ``` on a line of its own.\n\n" + PROSE * 2 + fence + PROSE * 4
    assert_cut_between_blocks(text)


def test_a_tilde_fence_is_not_cut() -> None:
    text = PROSE * 2 + "~~~\n" + "line of code\n\n" * 30 + "~~~\n\n" + PROSE * 4
    assert_cut_between_blocks(text)


def test_a_four_backtick_fence_holding_a_three_backtick_one_is_not_cut() -> None:
    inner = "```python\n" + "y = 2\n\n" * 30 + "```\n"
    text = PROSE * 2 + "````markdown\n" + inner + "````\n\n" + PROSE * 4
    assert_cut_between_blocks(text)


def test_an_indented_code_block_is_not_cut() -> None:
    text = PROSE * 2 + "    first = 1\n\n" * 40 + PROSE * 4
    assert_cut_between_blocks(text)


def test_a_cut_lands_on_the_first_block_boundary_at_or_after_the_size() -> None:
    code = "~~~\n" + "z = 3\n\n" * 80 + "~~~\n\n"  # starts after SIZE and ends well after it
    text = PROSE * 3 + code + PROSE
    cut = cut_point(text, SIZE)
    assert cut == text.index("~~~")  # between the third paragraph and the fence
    assert blocks(text[:cut]) + blocks(text[cut:]) == blocks(text)
    assert cut_point(text + PROSE * 20, SIZE) == cut  # however much text follows


def test_a_list_is_one_block_cut_only_where_it_ends() -> None:
    items = "".join(f"- point {n}, with a few words to it\n\n" for n in range(30))  # loose: blank lines between
    text = PROSE + items + "After the list.\n"
    assert cut_point(text, SIZE) == text.index("After the list.")
    assert cut_point(PROSE + items, SIZE) == -1  # still streaming: no safe cut point yet


def test_no_cut_before_a_half_streamed_line_that_may_continue_a_list() -> None:
    items = "".join(f"{n}. point {n}, with a few words to it\n\n" for n in range(1, 16))
    assert cut_point(items + "16", SIZE) == -1  # "16" may become "16. point", the list's next item


def test_streamed_parts_and_tail_add_up_to_the_answer_block_for_block() -> None:
    text = (
        "Mentioning ``` in prose.\n\n"
        + PROSE * 3
        + "```python\n"
        + "a = 1\n\n" * 20
        + "```\n\n"
        + PROSE * 2
        + "~~~\n"
        + "b = 2\n\n" * 20
        + "~~~\n\n"
        + "````md\n```js\n"
        + "c = 3\n\n" * 20
        + "```\n````\n\n"
        + "    d = 4\n\n" * 20
        + "".join(f"- item {n}, and some words\n\n" for n in range(20))
        + PROSE * 3
    )
    frozen: list[str] = []
    live = ""
    for start in range(0, len(text), 7):  # as AssistantText does: cut the unfrozen tail as it grows
        live += text[start : start + 7]
        if (cut := cut_point(live, SIZE)) > 0:
            frozen.append(live[:cut])
            live = live[cut:]
    assert len(frozen) > 4
    assert "".join(frozen) + live == text
    assert [b for part in [*frozen, live] for b in blocks(part)] == blocks(text)


def test_short_text_is_not_cut() -> None:
    assert cut_point(PROSE, SIZE) == -1
    assert split_parts(PROSE, SIZE) == [PROSE]


def test_block_starts_of_a_growing_text_are_those_of_a_fresh_parse() -> None:
    text = PROSE * 2 + "```python\nx = 1\n\ny = 2\n```\n\n- a\n\n  b\n- c\n\n| a |\n|---|\n| 1 |\n\n---\n" + PROSE
    grown = BlockStarts()
    seen = set()
    for end in range(1, len(text) + 1, 3):
        starts = grown.of(text[:end])
        assert starts == BlockStarts().of(text[:end])
        seen.update(starts)
    heads = [text[start : start + 3] for start in sorted(seen)]
    assert heads == ["Som", "Som", "```", "- a", "| a", "---"]  # the last paragraph has no blank line above
    assert grown.of(text[:50]) == BlockStarts().of(text[:50])  # cut back: parsed anew
