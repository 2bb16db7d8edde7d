"""Front matter: the YAML block at the top of a Markdown file, and the body after it."""

from __future__ import annotations

import pytest

from agent_tui.core.settings.front_matter import FrontMatterError, read_front_matter


def test_the_block_becomes_a_mapping_and_the_body_is_left_as_it_was() -> None:
    meta, body = read_front_matter("---\nname: pdf\ndescription: >\n  Read PDFs.\n---\n# Title\n\nText.\n")
    assert meta == {"name": "pdf", "description": "Read PDFs.\n"}
    assert body == "# Title\n\nText.\n"


def test_a_file_without_a_block_has_none() -> None:
    assert read_front_matter("# Title\n---\n") == ({}, "# Title\n---\n")
    assert read_front_matter("") == ({}, "")
    assert read_front_matter("\ufeff---\n---\nbody") == ({}, "body")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("---\nname: x\n", "no closing ---"),
        ("---\nname: [x\n---\n", "not valid YAML (line 3)"),
        ("---\n- a\n- b\n---\n", "a list, not a mapping"),
    ],
)
def test_a_broken_block_says_why_in_one_line(text: str, why: str) -> None:
    with pytest.raises(FrontMatterError) as caught:
        read_front_matter(text)
    assert why in str(caught.value) and "\n" not in str(caught.value)
