"""Fuzzy path ranking for @ completion."""

from __future__ import annotations

from agent_tui.tui.fuzzy import RANK_AT_MOST, PathMatcher

PATHS = [
    "src/",
    "src/widgets/",
    "src/widgets/prompt.py",
    "src/core/promotion.py",
    "docs/prompting.md",
    "tests/tui/test_prompt.py",
    "README.md",
    "src/p/r/o/m/p/t.txt",
]


def test_name_start_beats_name_inside_beats_path_beats_scattered() -> None:
    matcher = PathMatcher(PATHS)
    assert matcher.search("prompt") == [
        "src/widgets/prompt.py",
        "docs/prompting.md",
        "tests/tui/test_prompt.py",
        "src/p/r/o/m/p/t.txt",
    ]
    scattered = matcher.search("prmpt")
    assert set(scattered[:3]) == {"src/widgets/prompt.py", "docs/prompting.md", "tests/tui/test_prompt.py"}
    assert scattered[-1] == "src/p/r/o/m/p/t.txt"
    assert matcher.search("prompt", limit=1) == ["src/widgets/prompt.py"]


def test_case_is_ignored_and_order_of_characters_matters() -> None:
    matcher = PathMatcher(PATHS)
    assert matcher.search("READ") == ["README.md"]
    assert matcher.search("dmeaR") == []


def test_a_narrowed_query_and_a_fresh_one_agree() -> None:
    matcher = PathMatcher(PATHS)
    for query in ("p", "pr", "pro", "prom"):
        narrowed = matcher.search(query)
    assert narrowed == PathMatcher(PATHS).search("prom")
    assert matcher.search("rea") == ["README.md"]  # not a longer query: the whole list again


def test_an_empty_query_lists_the_shortest_first() -> None:
    assert PathMatcher(PATHS).search("", limit=3) == ["src/", "README.md", "src/widgets/"]


def test_a_name_match_is_found_among_more_matches_than_are_ranked() -> None:
    noise = [f"a/{'x' * 5}{n}/p_q_r.txt" for n in range(RANK_AT_MOST + 100)]
    deep = "very/deep/folder/" + "z" * 80 + "/pqr.md"
    assert PathMatcher([*noise, deep]).search("pqr", limit=1) == [deep]


def test_inside_a_folder_the_folder_itself_is_not_offered() -> None:
    assert PathMatcher(PATHS).search("src/widgets/") == ["src/widgets/prompt.py"]
