"""Importing the real Gemini CLI session into the store: resume against the fake provider, export, once, any prefix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.transfer.foreign.draft import UnreadableSession
from agent_tui.testing.fake_provider import FakeProvider

from ...history.test_rewind import _turn
from ...run.runner.conftest import stored
from .test_gemini import CALL_IDS

GEMINI = next((Path(__file__).parents[3] / "data" / "foreign" / "gemini").glob("session-*.jsonl"))
SOURCE_ID = "b8daf9e3-161c-4228-bf13-1c7e4ae7e480"


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(policy="allow", tools="all") as opened:
        yield opened


def _before_compaction() -> str:
    """The file as Gemini CLI had written it before the compression: a real prefix of it."""
    lines = GEMINI.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[: next(i for i, line in enumerate(lines) if "<state_snapshot>" in line)])


async def test_an_imported_session_resumes_with_its_tool_history_in_the_request(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    outcome = await runtime.sessions.transfer.import_foreign(
        "gemini", _before_compaction(), path=str(GEMINI), location=workdir
    )
    assert outcome.created
    session = await runtime.sessions.get(outcome.session_id)
    assert session.location == str(workdir) and session.model is None
    steps = [m for m in await runtime.sessions.messages(outcome.session_id) if m.kind == "assistant"]
    assert {m.data["model"] for m in steps} == {"gemini-2.5-pro"}
    fake.add({"text": "Carrying on."})
    await _turn(runtime, outcome.session_id, "what did you change?")
    body = fake.accepted[-1].body["messages"]
    sent = json.dumps(body)
    for seen in ("FIXTURE-TASK", "ANOTHER-TASK", "I'll list the files.", "what did you change?"):
        assert seen in sent
    calls = [c["function"]["name"] for m in body for c in m.get("tool_calls") or []]
    assert calls == ["bash", "read", "apply_patch", "apply_patch", "read", "bash"]
    assert "<session_context>" not in sent, "Gemini CLI's own context is not sent again"
    assert "[image pic.png (image/png) omitted" in sent  # the fake model has no vision: the image is its placeholder
    messages = await runtime.sessions.messages(outcome.session_id)
    assert messages[-1].data["parts"][0]["text"] == "Carrying on."


async def test_after_the_compression_the_resumed_request_starts_from_its_summary(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    outcome = await runtime.sessions.transfer.import_foreign(
        "gemini", GEMINI.read_text(encoding="utf-8"), path=str(GEMINI), location=workdir
    )
    fake.add({"text": "ok"})
    await _turn(runtime, outcome.session_id, "next")
    sent = json.dumps(fake.accepted[-1].body["messages"])
    assert "<state_snapshot>" in sent and "ANOTHER-TASK" in sent and "next" in sent
    assert "call_ls01" not in sent and "FIXTURE-TASK" not in sent, "what the compression summarised is not sent again"


async def test_export_after_import_and_back(runtime: Runtime, workdir: Path) -> None:
    outcome = await runtime.sessions.transfer.import_foreign(
        "gemini", GEMINI.read_text(encoding="utf-8"), path=str(GEMINI), location=workdir
    )
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
    text = GEMINI.read_text(encoding="utf-8")
    first = await runtime.sessions.transfer.import_foreign("gemini", text, path=str(GEMINI), location=workdir)
    second = await runtime.sessions.transfer.import_foreign("gemini", text, path=str(GEMINI), location=workdir)
    assert first.created and not second.created and second.session_id == first.session_id
    third = await runtime.sessions.transfer.import_foreign(
        "gemini", text, path=str(GEMINI), location=workdir, again=True
    )
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
            outcome = await runtime.sessions.transfer.import_foreign(
                "gemini", "".join(lines[:cut]), path=str(GEMINI), location=workdir, again=True
            )
        except UnreadableSession as error:
            raise AssertionError((cut, error)) from None
        events = [e.event for e in await stored(runtime, outcome.session_id)]
        called = [e.call_id for e in events if isinstance(e, ev.ToolCalled)]
        settled = [e.call_id for e in events if isinstance(e, (ev.ToolSucceeded, ev.ToolFailed))]
        assert sorted(called) == sorted(settled), cut
        started = [e.assistant_message_id for e in events if isinstance(e, ev.StepStarted)]
        assert started == [e.assistant_message_id for e in events if isinstance(e, ev.StepEnded)], cut
        await runtime.sessions.transfer.export(outcome.session_id)
