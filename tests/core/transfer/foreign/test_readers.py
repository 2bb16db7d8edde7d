"""The readers on the real agents' files (tests/data/foreign): what each session becomes, before any write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.log import events as ev
from agent_tui.core.transfer.foreign import claude_code, codex
from agent_tui.core.transfer.foreign.draft import Imported, UnreadableSession
from tests.fakes.foreign_homes import CLAUDE, CODEX


def _of(imported: Imported, kind: type[ev.DurableEvent]) -> list[ev.DurableEvent]:
    return [event for event, _ in imported.events if isinstance(event, kind)]


def test_claude_code_session_maps_prompts_steps_tools_images_usage_and_the_compaction() -> None:
    imported = claude_code.read(CLAUDE.read_text(encoding="utf-8"), str(CLAUDE))
    assert (imported.agent, imported.version) == ("claude", "2.1.197")
    assert imported.source_id == "eb3f527b-2401-4bcd-8464-32e23b9db391"
    assert imported.location == "/tmp/foreign-fixture-claude/proj"
    assert imported.model == "claude-sonnet-4-5"
    prompts = [ev.prompt_text(e.prompt) for e in _of(imported, ev.PromptAdmitted)]  # type: ignore[attr-defined]
    assert prompts == [
        "FIXTURE-TASK: list the files, change main.py to print hello, world, and describe pic.png",
        "ANOTHER-TASK: anything else?",
    ]
    calls = {e.call_id: e for e in _of(imported, ev.ToolCalled)}  # type: ignore[attr-defined]
    assert calls["call_ls01"].name == "bash" and calls["call_ls01"].input["command"] == "ls"
    assert calls["call_read01"].name == "read" and calls["call_read01"].input == {"path": "main.py"}
    patch = calls["call_edit01"].input["patch"]
    assert calls["call_edit01"].name == "apply_patch"
    assert "*** Update File: main.py\n@@\n def main():\n-    print('hello')\n+    print('hello, world')" in patch
    assert calls["call_todo01"].name == "todo"
    assert calls["call_todo01"].input == {"items": [{"content": "Say hello", "status": "done"}]}
    assert calls["call_img01"].name == "read" and "foreign_name" not in calls["call_img01"].call_meta
    done = {e.call_id: e for e in _of(imported, ev.ToolSucceeded)}  # type: ignore[attr-defined]
    assert done["call_ls01"].output.text == "main.py\npic.png"
    assert done["call_img01"].output.images[0]["mime"] == "image/png"
    failed = {e.call_id: e for e in _of(imported, ev.ToolFailed)}  # type: ignore[attr-defined]
    assert list(failed) == ["call_todo01"] and "No such tool available" in failed["call_todo01"].error.message
    assert [e.text for e in _of(imported, ev.ReasoningEnded)] == ["Look at the files first."]  # type: ignore[attr-defined]
    texts = [e.text for e in _of(imported, ev.TextEnded)]  # type: ignore[attr-defined]
    assert texts[-1] == "Second answer after resuming." and "I'll list the files." in texts
    (compaction,) = _of(imported, ev.CompactionEnded)
    assert "Primary Request: edit main.py" in compaction.summary  # type: ignore[attr-defined]
    ended = _of(imported, ev.StepEnded)
    assert len(ended) == 7 and ended[0].usage.input_tokens == 1200 and ended[0].usage.cache_read_tokens == 300  # type: ignore[attr-defined]
    # one step per Anthropic message id: thinking, text and the ls call are one response
    first = _of(imported, ev.StepStarted)[0]
    assert calls["call_ls01"].assistant_message_id == first.assistant_message_id  # type: ignore[attr-defined]
    assert imported.mapped["tool calls (bash)"] == 1 and imported.mapped["foreign tool calls"] == 0
    assert imported.notes and "agent_listing_delta" in imported.notes[0]
    times = [at for _, at in imported.events]
    assert None not in times and times == sorted(times) and times[0] == 1796548552667


def test_codex_rollout_maps_shell_the_heredoc_patch_the_image_and_the_compaction_once() -> None:
    imported = codex.read(CODEX.read_text(encoding="utf-8"), str(CODEX))
    assert (imported.agent, imported.version, imported.model) == ("codex", "0.171.0", "fake-model")
    assert imported.location == "/tmp/foreign-fixture-codex/proj"
    prompts = [ev.prompt_text(e.prompt) for e in _of(imported, ev.PromptAdmitted)]  # type: ignore[attr-defined]
    assert prompts[0].startswith("FIXTURE-TASK") and prompts[1] == "ANOTHER-TASK: anything else?"
    calls = {e.call_id: e for e in _of(imported, ev.ToolCalled)}  # type: ignore[attr-defined]
    assert (calls["call_ls01"].name, calls["call_ls01"].input) == ("bash", {"command": "ls"})
    assert calls["call_edit01"].name == "apply_patch"
    assert calls["call_edit01"].input["patch"].startswith("*** Begin Patch\n*** Update File: main.py\n")
    assert calls["call_edit01"].input["patch"].endswith("*** End Patch\n")
    assert (calls["call_img01"].name, calls["call_img01"].input) == ("read", {"path": "pic.png"})
    done = {e.call_id: e for e in _of(imported, ev.ToolSucceeded)}  # type: ignore[attr-defined]
    assert "main.py\npic.png" in done["call_ls01"].output.text
    assert done["call_img01"].output.images[0]["data"].startswith("iVBORw0KGgo")
    (compaction,) = _of(imported, ev.CompactionEnded)
    assert "Summary: edited main.py" in compaction.summary  # type: ignore[attr-defined]
    texts = [e.text for e in _of(imported, ev.TextEnded)]  # type: ignore[attr-defined]
    assert not any(t.startswith("Summary:") for t in texts), "the compaction's reply is its divider, not a message"
    ended = _of(imported, ev.StepEnded)
    assert len(ended) == 5 and ended[-2].usage.input_tokens == 9000 and ended[0].usage.reasoning_tokens == 8  # type: ignore[attr-defined]
    assert imported.notes == [
        "Codex's own instructions and environment context (2 messages) were left out; this project's instructions apply"
    ]


def _lines(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _text(rows: list[dict]) -> str:  # type: ignore[type-arg]
    return "".join(json.dumps(row) + "\n" for row in rows)


def test_an_unknown_version_is_refused_by_name() -> None:
    rows = _lines(CLAUDE)
    for row in rows:
        if "version" in row:
            row["version"] = "3.0.0"
    with pytest.raises(UnreadableSession, match=r"Claude Code 3\.0\.0 wrote this session; this build reads"):
        claude_code.read(_text(rows), "s.jsonl")
    rows = _lines(CODEX)
    rows[0]["payload"]["cli_version"] = "1.2.0"
    with pytest.raises(UnreadableSession, match=r"Codex 1\.2\.0 wrote this rollout; this build reads .*Codex CLI 0\.x"):
        codex.read(_text(rows), "r.jsonl")
    with pytest.raises(UnreadableSession, match="no session_meta line first"):
        codex.read(_text(rows[1:]), "r.jsonl")
    with pytest.raises(UnreadableSession, match="not a Claude Code session"):
        claude_code.read(_text(_lines(CODEX)), "r.jsonl")


def test_a_record_of_another_shape_is_one_error_naming_the_file_and_line() -> None:
    rows = _lines(CLAUDE)
    at = next(i for i, row in enumerate(rows) if row.get("type") == "assistant")
    rows[at]["message"] = 5
    with pytest.raises(
        UnreadableSession, match=rf"^s\.jsonl: line {at + 1} \(assistant\) does not fit the Claude Code"
    ):
        claude_code.read(_text(rows), "s.jsonl")
    rows = _lines(CODEX)
    at = next(i for i, row in enumerate(rows) if row.get("type") == "response_item")
    rows[at]["payload"] = {"type": "message", "role": "user", "content": 7}
    with pytest.raises(UnreadableSession, match=rf"^r\.jsonl: line {at + 1} \(response_item\) does not fit the Codex"):
        codex.read(_text(rows), "r.jsonl")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["claude", "codex"]), st.data())
def test_any_malformed_line_is_one_error_naming_it(agent: str, data: st.DataObject) -> None:
    path = CLAUDE if agent == "claude" else CODEX
    lines = path.read_text(encoding="utf-8").splitlines()
    at = data.draw(st.integers(0, len(lines) - 1))
    bad = data.draw(st.sampled_from(["{not json", "[1, 2]", '"text"', lines[at][: len(lines[at]) // 2]]))
    lines[at] = bad
    read = claude_code.read if agent == "claude" else codex.read
    with pytest.raises(UnreadableSession, match=rf"line {at + 1} is not (JSON|a record)"):
        read("\n".join(lines) + "\n", str(path))


def test_a_rewound_branch_is_left_out_with_a_note() -> None:
    rows = _lines(CLAUDE)
    at, second = next((i, r) for i, r in enumerate(rows) if r.get("type") == "user" and "ANOTHER-TASK" in str(r))
    abandoned = json.loads(json.dumps(second))
    abandoned["uuid"] = "00000000-0000-4000-8000-000000000000"
    abandoned["message"]["content"] = "ABANDONED prompt the user edited"
    rows.insert(at, abandoned)  # written first, then the edit: a sibling of the prompt that stayed
    imported = claude_code.read(_text(rows), "s.jsonl")
    prompts = [ev.prompt_text(e.prompt) for e in _of(imported, ev.PromptAdmitted)]  # type: ignore[attr-defined]
    assert prompts[1] == "ANOTHER-TASK: anything else?" and len(prompts) == 2
    assert "1 records of other branches (an edited or rewound part, or a subagent's) were left out" in imported.notes
    whole = claude_code.read(CLAUDE.read_text(encoding="utf-8"), str(CLAUDE))
    assert not any("other branches" in note for note in whole.notes), "the agent's own file is one branch"


def test_a_multiedit_or_an_overwrite_becomes_the_diff_its_result_recorded() -> None:
    rows = _lines(CLAUDE)
    call = next(r for r in rows if r.get("type") == "assistant" and "call_edit01" in json.dumps(r))
    call["message"]["content"][0]["name"] = "MultiEdit"
    call["message"]["content"][0]["input"] = {"file_path": "/tmp/foreign-fixture-claude/proj/main.py", "edits": []}
    imported = claude_code.read(_text(rows), "s.jsonl")
    (edit,) = [e for e in _of(imported, ev.ToolCalled) if e.call_id == "call_edit01"]  # type: ignore[attr-defined]
    assert edit.name == "apply_patch" and "-    print('hello')\n+    print('hello, world')" in edit.input["patch"]
    assert imported.mapped["tool calls (apply_patch)"] == 1 and imported.mapped["foreign tool calls"] == 0


def test_a_tool_of_its_own_stays_a_foreign_block_under_its_name() -> None:
    rows = _lines(CLAUDE)
    call = next(r for r in rows if r.get("type") == "assistant" and "call_img01" in json.dumps(r))
    call["message"]["content"][0]["name"] = "WebFetch"
    call["message"]["content"][0]["input"] = {"url": "https://example.org", "prompt": "what is it?"}
    imported = claude_code.read(_text(rows), "s.jsonl")
    (fetch,) = [e for e in _of(imported, ev.ToolCalled) if e.call_id == "call_img01"]  # type: ignore[attr-defined]
    assert (fetch.name, fetch.input["url"], fetch.call_meta["foreign_name"]) == (
        "WebFetch",
        "https://example.org",
        "WebFetch",
    )
    assert imported.mapped["foreign tool calls"] == 1


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def test_images_in_prompts_become_image_parts() -> None:
    rows = _lines(CLAUDE)
    prompt = next(r for r in rows if r.get("type") == "user" and "FIXTURE-TASK" in str(r))
    prompt["message"]["content"] = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "text", "text": "what is this?"},
    ]
    (first, *_) = _of(claude_code.read(_text(rows), "s.jsonl"), ev.PromptAdmitted)
    image, text = first.prompt  # type: ignore[attr-defined]
    assert (image.mime, image.data, image.size, text.text) == ("image/png", PNG, 70, "what is this?")
    rows = _lines(CODEX)
    prompt = next(r for r in rows if r.get("type") == "response_item" and "FIXTURE-TASK" in str(r.get("payload")))
    prompt["payload"]["content"].append({"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"})
    (first, *_) = _of(codex.read(_text(rows), "r.jsonl"), ev.PromptAdmitted)
    assert [type(p).__name__ for p in first.prompt] == ["TextPart", "ImagePart"]  # type: ignore[attr-defined]
    assert first.prompt[1].data == PNG  # type: ignore[attr-defined]
