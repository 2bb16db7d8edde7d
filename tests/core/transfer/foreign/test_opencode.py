"""The opencode reader on the real agent's export (tests/data/foreign/opencode): what the session becomes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.log import events as ev
from agent_tui.core.transfer.foreign import opencode
from agent_tui.core.transfer.foreign.draft import Imported, UnreadableSession
from agent_tui.vocab.kinds import CompactionReason, ErrorType
from tests.fakes.foreign_homes import OPENCODE_EXPORT, OPENCODE_SESSION_ID

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def _of(imported: Imported, kind: type[ev.DurableEvent]) -> list[Any]:
    return [event for event, _ in imported.events if isinstance(event, kind)]


def _doc() -> dict[str, Any]:
    return json.loads(OPENCODE_EXPORT.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _read(doc: dict[str, Any]) -> Imported:
    return opencode.read(json.dumps(doc), "s.json")


def test_the_session_maps_prompts_steps_tools_the_image_usage_and_the_compaction() -> None:
    imported = opencode.read(OPENCODE_EXPORT.read_text(encoding="utf-8"), str(OPENCODE_EXPORT))
    assert (imported.agent, imported.version, imported.source_id) == ("opencode", "1.18.33", OPENCODE_SESSION_ID)
    assert imported.location == "/tmp/foreign-fixture-opencode/proj"
    assert (imported.model, imported.title) == ("fake-model", "Edit main.py to print hello, world")
    prompts = [ev.prompt_text(e.prompt) for e in _of(imported, ev.PromptAdmitted)]
    assert prompts == [
        "FIXTURE-TASK: list the files, change main.py to print hello, world, and describe pic.png",
        "ANOTHER-TASK: anything else?",
    ]
    calls = {e.call_id: e for e in _of(imported, ev.ToolCalled)}
    assert (calls["call_ls01"].name, calls["call_ls01"].input) == (
        "bash",
        {"command": "ls", "description": "List files"},
    )
    assert (calls["call_read01"].name, calls["call_read01"].input) == ("read", {"path": "main.py"})
    edit = calls["call_edit01"].input["patch"]
    assert calls["call_edit01"].name == "apply_patch"
    assert "*** Update File: main.py\n@@\n def main():\n-    print('hello')\n+    print('hello, world')" in edit
    assert (
        calls["call_write01"].input["patch"]
        == "*** Begin Patch\n*** Add File: NOTES.md\n+# Notes\n+hello\n*** End Patch\n"
    )
    assert (calls["call_glob01"].name, calls["call_glob01"].call_meta["foreign_name"]) == ("glob", "glob")
    assert (calls["call_img01"].name, calls["call_img01"].input) == ("read", {"path": "pic.png"})
    done = {e.call_id: e for e in _of(imported, ev.ToolSucceeded)}
    assert done["call_ls01"].output.text == "main.py\npic.png\n"
    (picture,) = done["call_img01"].output.images
    assert (picture["path"], picture["data"], picture["size"]) == ("pic.png", PNG, 70)
    failed = {e.call_id: e for e in _of(imported, ev.ToolFailed)}
    assert list(failed) == ["call_glob01"] and failed["call_glob01"].error.message == "ripgrep execution failed"
    assert [e.text for e in _of(imported, ev.ReasoningEnded)] == ["Look at the files first."]
    (compaction,) = _of(imported, ev.CompactionEnded)
    assert compaction.summary == "Summary: edited main.py to print hello, world; wrote NOTES.md."
    assert compaction.reason == CompactionReason.AUTO
    texts = [e.text for e in _of(imported, ev.TextEnded)]
    assert not any(t.startswith("Summary:") for t in texts), "the compaction's reply is its divider, not a message"
    assert texts[-1] == "Second answer after resuming."
    ended = _of(imported, ev.StepEnded)
    # opencode's input leaves the cache out and its output the reasoning; ours hold them
    assert len(ended) == 9 and ended[0].usage.model_dump() == {
        "input_tokens": 1200,
        "output_tokens": 40,
        "reasoning_tokens": 8,
        "cache_read_tokens": 300,
        "cache_write_tokens": 0,
    }
    assert ended[6].usage.input_tokens == 9000
    first = _of(imported, ev.StepStarted)[0]
    assert calls["call_ls01"].assistant_message_id == first.assistant_message_id, "reasoning, text, ls: one step"
    assert imported.mapped["tool calls (apply_patch)"] == 2 and imported.mapped["foreign tool calls"] == 1
    assert imported.mapped["compactions"] == 1 and imported.mapped["images"] == 1
    assert imported.notes == [
        "text opencode wrote into user messages itself (1 parts, such as its prompt to continue after a"
        " compaction or a file's content it read in) was left out"
    ]
    times = [at for _, at in imported.events]
    assert None not in times and times == sorted(times) and times[0] == 1796579079274


def test_an_unknown_version_or_another_shape_is_refused_by_name() -> None:
    doc = _doc()
    doc["info"]["version"] = "2.0.0"
    with pytest.raises(
        UnreadableSession, match=r"opencode 2\.0\.0 wrote this session; this build reads .*opencode 1\.x"
    ):
        _read(doc)
    del doc["info"]["version"]
    with pytest.raises(UnreadableSession, match=r"opencode \(no version\) wrote this session"):
        _read(doc)
    with pytest.raises(UnreadableSession, match="not JSON; not an opencode session export"):
        opencode.read(OPENCODE_EXPORT.read_text(encoding="utf-8")[:-40], "s.json")
    with pytest.raises(UnreadableSession, match="no session info and messages"):
        opencode.read('{"type": "session_meta"}', "r.jsonl")


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_message_missing_what_it_needs_is_one_error_naming_it(data: st.DataObject) -> None:
    doc = _doc()
    number = data.draw(st.integers(0, len(doc["messages"]) - 1))
    message = doc["messages"][number]
    match data.draw(st.sampled_from(["info", "role", "tool", "callID"])):
        case "info":
            del message["info"]
        case "role":
            del message["info"]["role"]
        case name:
            tools = [p for p in message["parts"] if p["type"] == "tool"]
            if not tools:
                del message["info"]["role"]
            else:
                del tools[0][name]
    with pytest.raises(UnreadableSession, match=rf"message {number + 1} does not fit the opencode session format"):
        _read(doc)


def test_a_cut_export_still_makes_every_call_settled_and_every_step_closed() -> None:
    """An export of a session still running (a call not finished) keeps the call, settled as interrupted."""
    doc = _doc()
    for cut in range(1, len(doc["messages"]) + 1):
        imported = _read({**doc, "messages": doc["messages"][:cut]})
        called = [e.call_id for e in _of(imported, ev.ToolCalled)]
        settled = [e.call_id for e in _of(imported, ev.ToolSucceeded) + _of(imported, ev.ToolFailed)]
        assert sorted(called) == sorted(settled), cut
        started = [e.assistant_message_id for e in _of(imported, ev.StepStarted)]
        assert started == [e.assistant_message_id for e in _of(imported, ev.StepEnded)], cut
    running = _doc()
    part = next(p for m in running["messages"] for p in m["parts"] if p.get("callID") == "call_ls01")
    part["state"] = {"status": "running", "input": part["state"]["input"], "time": part["state"]["time"]}
    (stale,) = _of(_read(running), ev.ToolFailed)[:1]
    assert (stale.call_id, stale.error.type) == ("call_ls01", ErrorType.TOOL_STALE)
    unfinished = _doc()
    unfinished["messages"] = [m for m in unfinished["messages"] if m["info"].get("summary") is not True]
    imported = _read(unfinished)
    assert _of(imported, ev.CompactionEnded) == []
    assert "a compaction opencode had begun but not finished was left out" in imported.notes


def test_reverted_messages_synthetic_text_files_and_unknown_parts_are_notes() -> None:
    doc = _doc()
    second = next(m for m in doc["messages"] if "ANOTHER-TASK" in json.dumps(m["parts"]))
    doc["info"]["revert"] = {"messageID": second["info"]["id"]}
    first = doc["messages"][0]["parts"]
    first.append({"type": "file", "mime": "image/png", "filename": "shot.png", "url": f"data:image/png;base64,{PNG}"})
    first.append({"type": "file", "mime": "text/plain", "filename": "notes.txt", "url": "file:///tmp/notes.txt"})
    doc["messages"][1]["parts"].insert(1, {"type": "agent", "name": "explore"})
    imported = _read(doc)
    prompts = _of(imported, ev.PromptAdmitted)
    assert len(prompts) == 1 and [type(p).__name__ for p in prompts[0].prompt] == ["TextPart", "ImagePart"]
    assert prompts[0].prompt[1].path == "shot.png"
    assert "2 messages opencode had reverted were left out" in imported.notes
    assert "an attached file (notes.txt) was left out" in imported.notes
    assert "opencode parts this reader does not map were left out: 1 assistant agent" in imported.notes
    notes = [e.text for e in _of(imported, ev.InstructionsUpdated)]
    assert len(notes) == len(imported.notes) and all(n.startswith("[imported from opencode] ") for n in notes)


def test_an_edit_without_its_diff_shows_old_and_new_and_apply_patch_is_kept_as_given() -> None:
    doc = _doc()
    parts = {p.get("callID"): p for m in doc["messages"] for p in m["parts"] if p["type"] == "tool"}
    parts["call_edit01"]["state"]["metadata"] = {}
    patch = "*** Begin Patch\n*** Update File: main.py\n@@\n-a\n+b\n*** End Patch"
    parts["call_write01"].update(tool="apply_patch")
    parts["call_write01"]["state"]["input"] = {"patchText": patch}
    parts["call_glob01"]["state"]["input"] = {"pattern": "*.py", "path": "/elsewhere"}
    parts["call_ls01"]["state"]["input"] |= {"workdir": "/tmp", "timeout": 5000}
    calls = {e.call_id: e for e in _of(_read(doc), ev.ToolCalled)}
    assert calls["call_edit01"].input["patch"] == (
        "*** Begin Patch\n*** Update File: main.py\n@@\n-print('hello')\n+print('hello, world')\n*** End Patch\n"
    )
    assert calls["call_write01"].input == {"patch": patch + "\n"}
    assert calls["call_glob01"].input == {"pattern": "*.py", "path": "/elsewhere"}
    assert calls["call_ls01"].input == {
        "command": "ls",
        "description": "List files",
        "workdir": "/tmp",
        "timeout_ms": 5000,
    }


def test_the_title_is_opencodes_unless_it_is_its_default_then_the_first_prompt() -> None:
    doc = _doc()
    assert opencode.first_prompt(doc) == "Edit main.py to print hello, world"
    doc["info"]["title"] = "New session - 2026-12-06T09:15:52.667Z"
    assert (
        opencode.first_prompt(doc)
        == "FIXTURE-TASK: list the files, change main.py to print hello, world, and describe pic.png"
    )
    title = _read(doc).title
    assert title is not None and title.startswith("FIXTURE-TASK: list the files") and len(title) == 80
