"""The Gemini CLI reader on the real session file (tests/data/foreign/gemini), before any write."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.log import events as ev
from agent_tui.core.transfer.foreign import gemini
from agent_tui.core.transfer.foreign.draft import Imported, UnreadableSession
from tests.fakes.foreign_homes import CODEX, GEMINI

PROJ = "/tmp/foreign-fixture-gemini/proj"
CALL_IDS = [  # as Gemini CLI records them: the tool's name before the id the model gave
    "run_shell_command__call_ls01",
    "read_file__call_read01",
    "replace__call_edit01",
    "write_file__call_write01",
    "read_file__call_img01",
    "run_shell_command__call_status01",
]


def _of(imported: Imported, kind: type[ev.DurableEvent]) -> list[ev.DurableEvent]:
    return [event for event, _ in imported.events if isinstance(event, kind)]


def _lines(path: Path = GEMINI) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _text(rows: list[dict]) -> str:  # type: ignore[type-arg]
    return "".join(json.dumps(row) + "\n" for row in rows)


def _read(rows: list[dict], path: str = "s.jsonl") -> Imported:  # type: ignore[type-arg]
    return gemini.read(_text(rows), path)


def test_the_session_maps_prompts_steps_tools_edits_the_image_usage_and_the_compression() -> None:
    imported = gemini.read(GEMINI.read_text(encoding="utf-8"), str(GEMINI))
    assert (imported.agent, imported.version, imported.model) == ("gemini", "jsonl", "gemini-2.5-pro")
    assert imported.source_id == "b8daf9e3-161c-4228-bf13-1c7e4ae7e480"
    assert imported.location == PROJ, "the workspace directory whose sha256 is the file's projectHash"
    prompts = [ev.prompt_text(e.prompt) for e in _of(imported, ev.PromptAdmitted)]  # type: ignore[attr-defined]
    assert prompts == [
        "FIXTURE-TASK: list the files, change main.py to print hello, world, and describe pic.png",
        "ANOTHER-TASK: anything else?",
    ], "Gemini CLI's session context is no prompt"
    calls = {e.call_id: e for e in _of(imported, ev.ToolCalled)}  # type: ignore[attr-defined]
    assert list(calls) == CALL_IDS
    ls = calls["run_shell_command__call_ls01"]
    assert (ls.name, ls.input) == ("bash", {"command": "ls", "description": "List files"})
    assert (calls["read_file__call_read01"].name, calls["read_file__call_read01"].input) == (
        "read",
        {"path": "main.py"},
    )
    edit = calls["replace__call_edit01"]
    assert edit.name == "apply_patch" and "foreign_name" not in edit.call_meta
    assert edit.input["patch"] == (
        "*** Begin Patch\n*** Update File: main.py\n@@\n def main():\n-    print('hello')\n+    print('hello, world')\n"
        "*** End Patch\n"
    ), "the diff the tool recorded, with its context line"
    assert (
        calls["write_file__call_write01"].input["patch"]
        == "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+hello\n*** End Patch\n"
    )
    assert calls["read_file__call_img01"].input == {"path": "pic.png"}
    done = {e.call_id: e for e in _of(imported, ev.ToolSucceeded)}  # type: ignore[attr-defined]
    assert set(done) == set(calls) and not _of(imported, ev.ToolFailed)
    assert "Output: main.py\npic.png" in done["run_shell_command__call_ls01"].output.text
    assert done["read_file__call_read01"].output.text == "def main():\n    print('hello')\n"
    (picture,) = done["read_file__call_img01"].output.images
    assert picture["mime"] == "image/png" and picture["data"].startswith("iVBORw0KGgo") and picture["size"] == 70
    assert [e.text for e in _of(imported, ev.ReasoningEnded)] == ["Look at the files first."]  # type: ignore[attr-defined]
    texts = [e.text for e in _of(imported, ev.TextEnded)]  # type: ignore[attr-defined]
    assert texts[0] == "I'll list the files." and texts[-1] == "Second answer after resuming."
    assert "Got it. Thanks for the additional context!" not in texts, "the compression's own reply is its divider"
    (compaction,) = _of(imported, ev.CompactionEnded)
    assert compaction.summary.startswith("<state_snapshot>") and "Edit main.py" in compaction.summary  # type: ignore[attr-defined]
    kinds = [type(e).__name__ for e, _ in imported.events]
    second = next(
        i for i, (e, _) in enumerate(imported.events) if isinstance(e, ev.PromptAdmitted) and "ANOTHER" in str(e)
    )
    assert kinds[second - 1] == "CompactionEnded", "the divider sits before the history Gemini kept"
    ended = _of(imported, ev.StepEnded)
    assert len(ended) == 8 and ended[0].usage.model_dump() == {  # type: ignore[attr-defined]
        "input_tokens": 1200,
        "output_tokens": 48,
        "reasoning_tokens": 8,
        "cache_read_tokens": 300,
        "cache_write_tokens": 0,
    }
    assert ended[-2].usage.input_tokens == 900000  # type: ignore[attr-defined]
    assert imported.mapped["tool calls (apply_patch)"] == 2 and imported.mapped["foreign tool calls"] == 0
    assert imported.mapped["images"] == 1 and imported.mapped["compactions"] == 1
    assert imported.notes == [
        "Gemini CLI's own session context (date, system, directory listing) was left out; this project's instructions apply"
    ]
    assert imported.title and imported.title.startswith("FIXTURE-TASK")
    times = [at for _, at in imported.events]
    assert None not in times and times == sorted(times)


def test_an_unknown_layout_is_refused_by_name() -> None:
    rows = _lines()
    legacy = {**rows[0], "messages": [r for r in rows if "type" in r and "id" in r]}
    with pytest.raises(UnreadableSession, match=r"an older Gemini CLI session \(one JSON object\); this build reads"):
        gemini.read(json.dumps(legacy, indent=2), "session-old.json")
    with pytest.raises(UnreadableSession, match=r"no session metadata \(sessionId, projectHash\) first"):
        _read(rows[1:])
    with pytest.raises(UnreadableSession, match="not a Gemini CLI session"):
        gemini.read(CODEX.read_text(encoding="utf-8"), str(CODEX))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_any_malformed_line_is_one_error_naming_it(data: st.DataObject) -> None:
    lines = GEMINI.read_text(encoding="utf-8").splitlines()
    at = data.draw(st.integers(0, len(lines) - 1))
    lines[at] = data.draw(st.sampled_from(["{not json", "[1, 2]", '"text"', lines[at][: len(lines[at]) // 2]]))
    with pytest.raises(UnreadableSession, match=rf"line {at + 1} is not (JSON|a record)"):
        gemini.read("\n".join(lines) + "\n", str(GEMINI))


def test_a_record_or_message_of_another_shape_is_one_error_naming_it() -> None:
    rows = _lines()
    with pytest.raises(UnreadableSession, match=r"^s\.jsonl: line 2 does not fit the Gemini CLI session format"):
        _read([rows[0], {"$set": {"messages": [5]}}, *rows[1:]])
    last = max(i for i, row in enumerate(rows) if row.get("type") == "gemini")
    rows[last]["toolCalls"] = [5]
    with pytest.raises(UnreadableSession, match=r"^s\.jsonl: a message does not fit the Gemini CLI session format"):
        _read(rows)


def test_what_a_rewind_took_back_is_left_out_with_a_note() -> None:
    rows = _lines()
    end = next(i for i, r in enumerate(rows) if "single pixel" in str(r.get("content")))
    abandoned = {
        "id": "abandoned-1",
        "timestamp": rows[end]["timestamp"],
        "type": "user",
        "content": [{"text": "ABANDONED"}],
    }
    rows[end + 1 : end + 1] = [abandoned, {"$rewindTo": "abandoned-1"}]
    imported = _read(rows)
    prompts = [ev.prompt_text(e.prompt) for e in _of(imported, ev.PromptAdmitted)]  # type: ignore[attr-defined]
    assert "ABANDONED" not in prompts and len(prompts) == 2
    assert "1 messages a rewind took back were left out" in imported.notes


def test_another_tool_stays_a_foreign_block_and_a_failure_fails() -> None:
    rows = _lines()
    for row in rows:
        for call in row.get("toolCalls") or []:
            if call["id"] == "read_file__call_read01":
                call.update(name="google_web_search", args={"query": "hello world"})
            if call["id"] == "run_shell_command__call_ls01":
                call["status"] = "error"
                call["result"][0]["functionResponse"]["response"] = {"error": "command refused"}
    imported = _read(rows)
    calls = {e.call_id: e for e in _of(imported, ev.ToolCalled)}  # type: ignore[attr-defined]
    search = calls["read_file__call_read01"]
    assert (search.name, search.input, search.call_meta["foreign_name"]) == (
        "google_web_search",
        {"query": "hello world"},
        "google_web_search",
    )
    assert imported.mapped["foreign tool calls"] == 1
    (failed,) = _of(imported, ev.ToolFailed)
    assert failed.call_id == "run_shell_command__call_ls01" and failed.error.message == "command refused"  # type: ignore[attr-defined]


def test_without_the_session_context_the_project_marker_names_the_directory(tmp_path: Path) -> None:
    rows = [r for r in _lines() if "messages" not in r.get("$set", {})]
    chats = tmp_path / "proj" / "chats"
    chats.mkdir(parents=True)
    assert _read(rows, str(chats / GEMINI.name)).location == ""
    assert "the file does not name the directory the session ran in" in _read(rows, str(chats / GEMINI.name)).notes[-1]
    here = tmp_path / "here"
    (tmp_path / "proj" / ".project_root").write_text(str(here) + "\n")
    for row in rows:
        if "projectHash" in row:
            row["projectHash"] = hashlib.sha256(str(here).encode()).hexdigest()
    imported = _read(rows, str(chats / GEMINI.name))
    assert imported.location == str(here) and not imported.notes


def test_images_in_prompts_become_image_parts() -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    rows = _lines()
    prompt = next(r for r in rows if r.get("type") == "user" and "FIXTURE-TASK" in str(r))
    prompt["content"] = [{"text": "what is this?"}, {"inlineData": {"mimeType": "image/png", "data": png}}]
    (first, *_) = _of(_read(rows), ev.PromptAdmitted)
    text, picture = first.prompt  # type: ignore[attr-defined]
    assert (text.text, picture.mime, picture.data, picture.size) == ("what is this?", "image/png", png, 70)
