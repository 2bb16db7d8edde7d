"""The prompt history's file and rules: per project, duplicates collapsed, capped, secrets kept out."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_tui.tui import prompt_history
from agent_tui.tui.prompt_history import HistoryUnavailable, PromptHistory, collapse, looks_like_key, recordable


def opened(path: Path, project: str = "/p") -> PromptHistory:
    history = PromptHistory(project, path)
    history.load()
    return history


def test_saved_prompts_come_back_per_project_newest_last(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    for project, text in [("/a", "one"), ("/b", "other"), ("/a", "two"), ("/a", "one")]:
        PromptHistory(project, db).save(text)
    assert opened(db, "/a").entries == ["two", "one"]
    assert opened(db, "/b").entries == ["other"]
    assert opened(db, "/c").entries == []


def test_the_oldest_go_past_the_cap(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(prompt_history, "CAP", 5)
    db = tmp_path / "h.db"
    history = PromptHistory("/p", db)
    for n in range(12):
        history.save(f"p{n}")
    assert opened(db).entries == [f"p{n}" for n in range(7, 12)]


def test_two_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    PromptHistory("/p", db).load()  # the file exists before the race

    def write(name: str) -> None:
        history = PromptHistory("/p", db)
        for n in range(40):
            history.save(f"{name}{n}")

    threads = [threading.Thread(target=write, args=(name,)) for name in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(opened(db).entries) == sorted(f"{name}{n}" for name in "ab" for n in range(40))


def test_loading_keeps_what_was_sent_before_as_the_newest(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    PromptHistory("/p", db).save("old")
    PromptHistory("/p", db).save("typed early")
    history = PromptHistory("/p", db)
    history.add("typed early")
    history.load()
    assert history.entries == ["old", "typed early"]


def test_an_unreadable_file_says_so(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    db.write_bytes(b"not a database" * 100)
    with pytest.raises(HistoryUnavailable, match="not a database"):
        PromptHistory("/p", db).load()


def test_what_is_recorded() -> None:
    assert recordable("fix the bug") == "fix the bug"
    assert recordable(" my password is hunter2") is None  # a leading space keeps a prompt out
    assert recordable("   ") is None
    assert recordable("x" * 20_000) is None
    assert recordable("/model openai/gpt-4o") == "/model openai/gpt-4o"
    assert recordable("/login sk-proj-abcdef1234567890") == "/login"
    assert recordable('/mcp add "ghp_abcdefghijklmnop1234"') == "/mcp"
    assert recordable("/rename AKIAIOSFODNN7EXAMPLE") == "/rename"
    assert recordable("//not a command sk-abcdef1234567890abcd") == "//not a command sk-abcdef1234567890abcd"


def test_key_like_words() -> None:
    assert looks_like_key("sk-ant-api03-abcdefgh")
    assert looks_like_key("a1b2c3d4e5f6a7b8c9d0e1f2")
    assert not looks_like_key("src/agent_tui/tui/app.py")  # 20+ characters but no digit
    assert not looks_like_key("gpt-4o")
    assert not looks_like_key("sk-")


@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=30))
def test_collapse_keeps_each_text_once_at_its_newest_place(texts: list[str]) -> None:
    out = collapse(texts)
    assert len(out) == len(set(texts))
    assert out == sorted(set(texts), key=lambda t: max(i for i, x in enumerate(texts) if x == t))


@given(
    st.lists(st.text(min_size=1, max_size=8).filter(lambda t: not t.startswith((" ", "/")) and t.strip()), max_size=30)
)
def test_adding_in_memory_matches_collapse(texts: list[str]) -> None:
    history = PromptHistory("/p", None)
    for text in texts:
        history.add(text)
    assert history.entries == collapse(texts)


def test_search_needs_every_word_any_case_newest_first() -> None:
    history = PromptHistory("/p", None)
    for text in ["Fix the parser", "add tests", "fix the lexer", "parser tests"]:
        history.add(text)
    assert history.search("fix") == ["fix the lexer", "Fix the parser"]
    assert history.search("PARSER fix") == ["Fix the parser"]
    assert history.search("") == ["parser tests", "fix the lexer", "add tests", "Fix the parser"]
