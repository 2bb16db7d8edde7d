"""Importing the real agents' sessions into the store: resume against the fake provider, export, search, once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.transfer.foreign.draft import UnreadableSession
from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.foreign_homes import CLAUDE, CODEX

from ...run.runner.conftest import stored
from .conftest import assert_whole, called, import_file, lines_before, resumable, resumed

FILES = {"claude": CLAUDE, "codex": CODEX}


async def test_an_imported_claude_session_resumes_with_its_tool_history_in_the_request(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    session_id, steps = await resumable(runtime, "claude", CLAUDE, lines_before(CLAUDE, "compact_boundary"), workdir)
    assert {m.data["model"] for m in steps} == {"claude-sonnet-4-5"}
    body = await resumed(runtime, fake, session_id, "what did you change?", "Carrying on.")
    sent = json.dumps(body)
    for seen in ("FIXTURE-TASK", "ANOTHER-TASK", "Second answer after resuming.", "what did you change?"):
        assert seen in sent
    assert called(body) == ["bash", "read", "apply_patch", "read", "todo"]
    tool_texts = [m["content"] for m in body if m["role"] == "tool"]
    assert "main.py\\npic.png" in json.dumps(tool_texts)
    # the fake model has no vision: the image the tool returned reaches the request as its placeholder
    assert "[image image/png omitted" in sent
    messages = await runtime.sessions.messages(session_id)
    assert messages[-1].data["parts"][0]["text"] == "Carrying on."


async def test_after_a_compaction_the_resumed_request_starts_from_its_summary(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    for agent, summary in (("claude", "Primary Request: edit main.py"), ("codex", "Summary: edited main.py")):
        outcome = await import_file(runtime, agent, FILES[agent], location=workdir)
        sent = json.dumps(await resumed(runtime, fake, outcome.session_id, "next", "ok"))
        assert summary in sent and "next" in sent
        assert "call_ls01" not in sent, "what the compaction summarised is not sent again"


async def test_export_after_import_and_back(runtime: Runtime, workdir: Path) -> None:
    outcome = await import_file(runtime, "codex", CODEX, location=workdir)
    exported = await runtime.sessions.transfer.export(outcome.session_id)
    records = [json.loads(line) for line in exported.splitlines()]
    outputs = {r["tool_call_id"]: r for r in records if r["type"] == "tool.output"}
    assert set(outputs) == {"call_ls01", "call_edit01", "call_img01"}
    assert any(r["type"] == "agent.event" and r["event"]["type"] == "compaction_complete" for r in records)
    copy = await runtime.sessions.transfer.import_session(exported, location=workdir)
    assert (await runtime.sessions.transfer.export(copy.id)).count("call_edit01") == exported.count("call_edit01")
    notes = [r["event"] for r in records if r["type"] == "agent.event" and r["event"]["type"] == "instructions_update"]
    assert [n.get("source") for n in notes] == ["import"], "the note stays a note through export and import"
    copied = [m for m in await runtime.sessions.messages(copy.id) if m.kind == "system"]
    assert [m.data.get("source") for m in copied] == ["import"]
    markdown = await runtime.sessions.transfer.export(outcome.session_id, "markdown")
    assert "*** Update File: main.py" in markdown and "<summary>import note</summary>" in markdown


async def test_importing_twice_finds_the_first_unless_again(runtime: Runtime, workdir: Path) -> None:
    first = await import_file(runtime, "claude", CLAUDE, location=workdir)
    second = await import_file(runtime, "claude", CLAUDE, location=workdir)
    assert first.created and not second.created and second.session_id == first.session_id
    assert len(await runtime.sessions.list(workdir)) == 1
    third = await import_file(runtime, "claude", CLAUDE, location=workdir, again=True)
    assert third.created and third.session_id != first.session_id
    assert len(await runtime.sessions.list(workdir)) == 2
    created = (await stored(runtime, third.session_id))[0].event
    assert isinstance(created, ev.SessionCreated) and created.imported_from is not None
    assert (created.imported_from.agent, created.imported_from.id, created.imported_from.version) == (
        "claude",
        "eb3f527b-2401-4bcd-8464-32e23b9db391",
        "2.1.197",
    )


async def test_the_session_keeps_the_source_times_and_its_directory(runtime: Runtime) -> None:
    outcome = await import_file(runtime, "claude", CLAUDE)
    session = await runtime.sessions.get(outcome.session_id)
    assert session.location == "/tmp/foreign-fixture-claude/proj"
    events = await stored(runtime, outcome.session_id)
    assert events[0].created == 1796548552667 and events[-1].created > events[0].created


async def test_a_file_it_cannot_read_writes_nothing(runtime: Runtime, workdir: Path) -> None:
    lines = CLAUDE.read_text(encoding="utf-8").splitlines()
    lines[20] = "{broken"
    with pytest.raises(UnreadableSession, match="line 21 is not JSON; nothing was imported"):
        await runtime.sessions.transfer.import_foreign("claude", "\n".join(lines), path="s.jsonl", location=workdir)
    with pytest.raises(UnreadableSession, match="cannot import from 'aider'"):
        await runtime.sessions.transfer.import_foreign("aider", "{}", path="s.json", location=workdir)
    assert await runtime.sessions.list(None) == []


async def test_the_picker_search_finds_imported_content(runtime: Runtime, workdir: Path) -> None:
    for agent, path in FILES.items():
        await import_file(runtime, agent, path, location=workdir)
    found = await runtime.sessions.list(workdir, search="pixel")
    assert len(found) == 2
    assert await runtime.sessions.list(workdir, search="zebra") == []


async def test_a_rebuild_from_the_log_gives_the_same_imported_session(runtime: Runtime, workdir: Path) -> None:
    outcome = await import_file(runtime, "claude", CLAUDE)
    before = (await runtime.sessions.get(outcome.session_id), await runtime.sessions.messages(outcome.session_id))
    await runtime.sessions.rebuild()
    after = (await runtime.sessions.get(outcome.session_id), await runtime.sessions.messages(outcome.session_id))
    assert after == before and before[0].created == 1796548552667
    again = await import_file(runtime, "claude", CLAUDE)
    assert not again.created, "the source id is read from the log, so a rebuild keeps the import idempotent"


async def test_every_prefix_of_each_file_imports_with_every_call_settled_and_every_step_closed(
    runtime: Runtime, workdir: Path
) -> None:
    """A session file cut anywhere (an agent still writing it, a crash) still makes a whole session."""
    for agent, path in FILES.items():
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        for cut in range(1, len(lines) + 1):
            try:
                outcome = await import_file(runtime, agent, path, "".join(lines[:cut]), location=workdir, again=True)
            except UnreadableSession as error:
                assert "no user or assistant record" in str(error) or cut == 1, (agent, cut, error)
                continue
            await assert_whole(runtime, outcome.session_id, (agent, cut))  # every prefix exports too


async def test_a_todowrite_that_succeeded_is_the_sessions_plan(runtime: Runtime, workdir: Path) -> None:
    lines = [json.loads(line) for line in CLAUDE.read_text(encoding="utf-8").splitlines()]
    for row in lines:  # the fixture's -p run refused TodoWrite; here it took it
        for block in (row.get("message") or {}).get("content") or []:
            if isinstance(block, dict) and block.get("tool_use_id") == "call_todo01":
                block.update(content="Todos have been modified successfully.", is_error=False)
    text = "".join(json.dumps(row) + "\n" for row in lines)
    outcome = await runtime.sessions.transfer.import_foreign("claude", text, path="s.jsonl", location=workdir)
    plan = await runtime.sessions.plan(outcome.session_id)
    assert [(item.content, item.status.value) for item in plan.items] == [("Say hello", "done")]
