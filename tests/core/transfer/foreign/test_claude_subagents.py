"""Claude Code's subagents (tests/data/foreign/claude_code_subagent): the Agent call is our ``task``, the
subagent's transcript beside the session a child session of it, as agent-tui keeps its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.transfer.foreign import claude_code
from agent_tui.core.transfer.foreign.draft import Imported, UnreadableSession
from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.foreign_homes import CLAUDE, CLAUDE_SUBAGENT

from ...history.test_rewind import _turn
from ...run.runner.conftest import stored

SESSION = next(CLAUDE_SUBAGENT.glob("*.jsonl"))
TRANSCRIPT = next(CLAUDE_SUBAGENT.glob("*/subagents/agent-*.jsonl"))
PROMPT = "SUBAGENT-PROMPT: list the files in the project and report them."
ANSWER = "SUBAGENT-RESULT: the project holds main.py and pic.png."


def _of(imported: Imported, kind: type[ev.DurableEvent]) -> list[Any]:
    return [event for event, _ in imported.events if isinstance(event, kind)]


def _read(path: Path) -> Imported:
    return claude_code.read(path.read_text(encoding="utf-8"), str(path))


def _copy(tmp_path: Path) -> Path:
    """The fixture's session with its subagents folder, somewhere a test may change it."""
    shutil.copytree(SESSION.parent, tmp_path / "slug")
    return tmp_path / "slug" / SESSION.name


def test_the_agent_call_is_a_task_whose_result_is_the_answer_and_the_transcript_a_child() -> None:
    imported = _read(SESSION)
    (call,) = _of(imported, ev.ToolCalled)
    assert (call.call_id, call.name) == ("call_agent01", "task")
    assert call.input == {"agent": "general", "description": "List project files", "prompt": PROMPT}
    (result,) = _of(imported, ev.ToolSucceeded)
    assert result.output.text == ANSWER, "the answer, not Claude Code's note of how to reach the agent"
    (child,) = imported.children
    assert (child.spawned_by_call, child.subagent, child.title) == ("call_agent01", "general", "List project files")
    assert child.source_id == f"{imported.source_id}/agent-{TRANSCRIPT.stem.removeprefix('agent-')}"
    assert [ev.prompt_text(p.prompt) for p in _of(child, ev.PromptAdmitted)] == [PROMPT]
    (ls,) = _of(child, ev.ToolCalled)
    assert (ls.call_id, ls.name, ls.input["command"]) == ("call_subls01", "bash", "ls")
    assert [r.output.text for r in _of(child, ev.ToolSucceeded)] == ["main.py\npic.png"]
    assert [t.text for t in _of(child, ev.TextEnded)] == [ANSWER]
    assert [r.text for r in _of(child, ev.ReasoningEnded)] == ["The subagent lists the files."]
    assert imported.mapped["subagent sessions"] == 1 and imported.mapped["tool calls (bash)"] == 1
    assert not any("sidechain" in note or "left out" in note and "transcript" in note for note in imported.notes)


def test_a_subagents_transcript_given_alone_is_refused_naming_its_session() -> None:
    with pytest.raises(UnreadableSession, match=r"a subagent's transcript.*import the session \(c0752992"):
        _read(TRANSCRIPT)


def test_a_transcript_no_call_of_the_session_started_is_a_note(tmp_path: Path) -> None:
    folder = tmp_path / CLAUDE.stem / "subagents"
    folder.mkdir(parents=True)
    shutil.copy(TRANSCRIPT, folder / TRANSCRIPT.name)
    moved = tmp_path / CLAUDE.name
    shutil.copy(CLAUDE, moved)
    imported = _read(moved)
    assert imported.children == []
    assert f"a subagent's transcript ({TRANSCRIPT.name}) no Agent call here started was left out" in imported.notes


def test_the_older_task_tool_and_the_meta_files_call_id_link_it_too(tmp_path: Path) -> None:
    session = _copy(tmp_path)
    rows = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        for block in (row.get("message") or {}).get("content") or []:
            if isinstance(block, dict) and block.get("name") == "Agent":
                block["name"], block["input"]["run_in_background"] = "Task", False
        if isinstance(row.get("toolUseResult"), dict):
            del row["toolUseResult"]["agentId"]  # only the .meta.json's toolUseId names the call now
    session.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    imported = _read(session)
    (call,) = _of(imported, ev.ToolCalled)
    assert call.name == "task" and imported.children[0].spawned_by_call == "call_agent01"
    assert "the Task call's options run_in_background were left out" in imported.notes


def test_a_broken_transcript_fails_the_whole_import_naming_it(tmp_path: Path) -> None:
    session = _copy(tmp_path)
    transcript = next(session.with_suffix("").glob("subagents/agent-*.jsonl"))
    lines = transcript.read_text(encoding="utf-8").splitlines()
    lines[2] = "{broken"
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(UnreadableSession, match=rf"{transcript.name}: line 3 is not JSON; nothing was imported"):
        _read(session)


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(policy="allow", tools="all") as opened:
        yield opened


async def test_the_import_writes_the_child_session_spawned_by_the_task_call(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    text = SESSION.read_text(encoding="utf-8")
    outcome = await runtime.sessions.transfer.import_foreign("claude", text, path=str(SESSION), location=workdir)
    (child,) = await runtime.sessions.children(outcome.session_id)
    assert (child.spawned_by, child.spawned_call_id, child.agent) == (outcome.session_id, "call_agent01", "general")
    assert child.title == "List project files" and child.location == str(workdir)
    top = await runtime.sessions.list(workdir, top_level=True)
    assert [s.id for s in top] == [outcome.session_id], "the child is no session of its own in the picker"
    events = [e.event for e in await stored(runtime, outcome.session_id)]
    called = next(e for e in events if isinstance(e, ev.ToolCalled))
    assert child.spawned_message_id == called.assistant_message_id
    result = next(e for e in events if isinstance(e, ev.ToolSucceeded))
    assert result.output.text == f"{ANSWER}\n\nsession_id: {child.id}"
    assert result.output.data == result.result_meta == {"session_id": child.id, "agent": "general"}
    steps = [e.event for e in await stored(runtime, child.id) if isinstance(e.event, ev.StepStarted)]
    assert [s.agent for s in steps] == ["general", "general"], "the subagent's steps are its agent's"
    answer = [m for m in await runtime.sessions.messages(child.id) if m.kind == "assistant"][-1]
    assert answer.data["parts"][-1]["text"] == ANSWER

    again = await runtime.sessions.transfer.import_foreign("claude", text, path=str(SESSION), location=workdir)
    assert not again.created and len(await runtime.sessions.children(outcome.session_id)) == 1

    exported = await runtime.sessions.transfer.export(outcome.session_id)
    assert PROMPT in exported and "call_subls01" in exported, "the export carries the subagent's session"
    copy = await runtime.sessions.transfer.import_session(exported, location=workdir)
    assert len(await runtime.sessions.children(copy.id)) == 1

    fake.add({"text": "Carrying on."})
    await _turn(runtime, outcome.session_id, "what did the subagent find?")
    sent = fake.accepted[-1].body["messages"]
    calls = [c["function"]["name"] for m in sent for c in m.get("tool_calls") or []]
    assert calls == ["task"] and ANSWER in json.dumps(sent)
    assert "call_subls01" not in json.dumps(sent), "the subagent's own work stays in its session"


async def test_every_prefix_of_the_session_imports_with_its_child_once_its_call_is_there(
    runtime: Runtime, workdir: Path
) -> None:
    """The session cut anywhere (Claude Code still writing it): a child exactly when its call is in the part."""
    lines = SESSION.read_text(encoding="utf-8").splitlines(keepends=True)
    called_at = next(i for i, line in enumerate(lines) if '"id":"call_agent01","name":"Agent"' in line)
    for cut in range(3, len(lines) + 1):  # the first two lines are queue bookkeeping
        text = "".join(lines[:cut])
        outcome = await runtime.sessions.transfer.import_foreign(
            "claude", text, path=str(SESSION), location=workdir, again=True
        )
        children = await runtime.sessions.children(outcome.session_id)
        assert len(children) == (1 if cut > called_at else 0), cut
        events = [e.event for e in await stored(runtime, outcome.session_id)]
        settled = [e for e in events if isinstance(e, (ev.ToolSucceeded, ev.ToolFailed))]
        assert [e.call_id for e in settled] == (["call_agent01"] if cut > called_at else []), cut
        if children:
            assert settled[0].result_meta == {"session_id": children[0].id, "agent": "general"}, cut
        else:
            assert any("no Agent call here started" in n for n in outcome.imported.notes), cut
