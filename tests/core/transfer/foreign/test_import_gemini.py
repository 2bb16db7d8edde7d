"""Importing the real Gemini CLI session into the store: resume against the fake provider, export, once, any prefix."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.transfer.foreign.draft import UnreadableSession
from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.foreign_homes import GEMINI

from ...run.runner.conftest import stored
from .conftest import assert_whole, called, import_file, lines_before, resumable, resumed
from .test_gemini import CALL_IDS

SOURCE_ID = "b8daf9e3-161c-4228-bf13-1c7e4ae7e480"


async def test_an_imported_session_resumes_with_its_tool_history_in_the_request(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    session_id, steps = await resumable(runtime, "gemini", GEMINI, lines_before(GEMINI, "<state_snapshot>"), workdir)
    assert {m.data["model"] for m in steps} == {"gemini-2.5-pro"}
    body = await resumed(runtime, fake, session_id, "what did you change?", "Carrying on.")
    sent = json.dumps(body)
    for seen in ("FIXTURE-TASK", "ANOTHER-TASK", "I'll list the files.", "what did you change?"):
        assert seen in sent
    assert called(body) == ["bash", "read", "apply_patch", "apply_patch", "read", "bash"]
    assert "<session_context>" not in sent, "Gemini CLI's own context is not sent again"
    assert "[image pic.png (image/png) omitted" in sent  # the fake model has no vision: the image is its placeholder
    messages = await runtime.sessions.messages(session_id)
    assert messages[-1].data["parts"][0]["text"] == "Carrying on."


async def test_after_the_compression_the_resumed_request_starts_from_its_summary(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    outcome = await import_file(runtime, "gemini", GEMINI, location=workdir)
    sent = json.dumps(await resumed(runtime, fake, outcome.session_id, "next", "ok"))
    assert "<state_snapshot>" in sent and "ANOTHER-TASK" in sent and "next" in sent
    assert "call_ls01" not in sent and "FIXTURE-TASK" not in sent, "what the compression summarised is not sent again"


async def test_export_after_import_and_back(runtime: Runtime, workdir: Path) -> None:
    outcome = await import_file(runtime, "gemini", GEMINI, location=workdir)
    exported = await runtime.sessions.transfer.export(outcome.session_id)
    records = [json.loads(line) for line in exported.splitlines()]
    outputs = {r["tool_call_id"] for r in records if r["type"] == "tool.output"}
    assert outputs == set(CALL_IDS)
    assert any(r["type"] == "agent.event" and r["event"]["type"] == "compaction_complete" for r in records)
    copy = await runtime.sessions.transfer.import_session(exported, location=workdir)
    assert (await runtime.sessions.transfer.export(copy.id)).count("call_status01") == exported.count("call_status01")
    markdown = await runtime.sessions.transfer.export(outcome.session_id, "markdown")
    assert "Second answer after resuming." in markdown and "<summary>import note</summary>" in markdown
    assert "*** Update File: main.py" in markdown and "*** Add File: notes.md" in markdown


async def test_importing_twice_finds_the_first_unless_again(runtime: Runtime, workdir: Path) -> None:
    first = await import_file(runtime, "gemini", GEMINI, location=workdir)
    second = await import_file(runtime, "gemini", GEMINI, location=workdir)
    assert first.created and not second.created and second.session_id == first.session_id
    third = await import_file(runtime, "gemini", GEMINI, location=workdir, again=True)
    assert third.created and len(await runtime.sessions.list(workdir)) == 2
    created = (await stored(runtime, third.session_id))[0].event
    assert isinstance(created, ev.SessionCreated) and created.imported_from is not None
    assert (created.imported_from.agent, created.imported_from.id, created.imported_from.version) == (
        "gemini",
        SOURCE_ID,
        "jsonl",
    )
    assert await runtime.sessions.list(workdir, search="pixel")


async def test_every_prefix_imports_with_every_call_settled_and_every_step_closed(
    runtime: Runtime, workdir: Path
) -> None:
    """The file cut anywhere (Gemini CLI still writing it, a crash) still makes a whole session."""
    lines = GEMINI.read_text(encoding="utf-8").splitlines(keepends=True)
    for cut in range(1, len(lines) + 1):
        try:
            outcome = await import_file(runtime, "gemini", GEMINI, "".join(lines[:cut]), location=workdir, again=True)
        except UnreadableSession as error:
            raise AssertionError((cut, error)) from None
        await assert_whole(runtime, outcome.session_id, cut)
