"""An opencode session imported into the store: resumed against the fake provider, exported, imported once."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.transfer.foreign import locate
from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.foreign_homes import OPENCODE_DATABASE, OPENCODE_EXPORT, OPENCODE_SESSION_ID

from ...run.runner.conftest import stored
from .conftest import called, import_file, resumable, resumed


def _before_compaction() -> str:
    """The export as it was before opencode compacted: the real messages up to the one asking for it."""
    doc = json.loads(OPENCODE_EXPORT.read_text(encoding="utf-8"))
    cut = next(i for i, m in enumerate(doc["messages"]) if any(p["type"] == "compaction" for p in m["parts"]))
    return json.dumps({**doc, "messages": doc["messages"][:cut]})


async def test_an_imported_session_resumes_with_its_tool_history_in_the_request(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    session_id, steps = await resumable(runtime, "opencode", OPENCODE_EXPORT, _before_compaction(), workdir)
    assert (await runtime.sessions.get(session_id)).title.startswith("Edit main.py")
    assert {m.data["model"] for m in steps} == {"fake-model"} and len(steps) == 7
    body = await resumed(runtime, fake, session_id, "what did you change?", "Carrying on.")
    sent = json.dumps(body)
    for seen in ("FIXTURE-TASK", "I'll list the files.", "hello, world", "what did you change?"):
        assert seen in sent
    assert called(body) == ["bash", "read", "apply_patch", "apply_patch", "glob", "read"]
    tool_texts = [m["content"] for m in body if m["role"] == "tool"]
    assert "main.py\\npic.png" in json.dumps(tool_texts) and "ripgrep execution failed" in json.dumps(tool_texts)
    assert "[image pic.png (image/png) omitted" in sent, "the fake model has no vision: the image is its placeholder"
    messages = await runtime.sessions.messages(session_id)
    assert messages[-1].data["parts"][0]["text"] == "Carrying on."


async def test_after_the_compaction_the_resumed_request_starts_from_its_summary(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    outcome = await import_file(runtime, "opencode", OPENCODE_EXPORT, location=workdir)
    sent = json.dumps(await resumed(runtime, fake, outcome.session_id, "next", "ok"))
    assert "Summary: edited main.py to print hello, world; wrote NOTES.md." in sent and "next" in sent
    assert "ANOTHER-TASK" in sent and "call_ls01" not in sent, "what the compaction summarised is not sent again"


async def test_export_after_import_and_back(runtime: Runtime, workdir: Path) -> None:
    outcome = await import_file(runtime, "opencode", OPENCODE_EXPORT, location=workdir)
    exported = await runtime.sessions.transfer.export(outcome.session_id)
    records = [json.loads(line) for line in exported.splitlines()]
    outputs = {r["tool_call_id"]: r for r in records if r["type"] == "tool.output"}
    assert set(outputs) == {"call_ls01", "call_read01", "call_edit01", "call_write01", "call_glob01", "call_img01"}
    assert any(r["type"] == "agent.event" and r["event"]["type"] == "compaction_complete" for r in records)
    copy = await runtime.sessions.transfer.import_session(exported, location=workdir)
    assert (await runtime.sessions.transfer.export(copy.id)).count("call_edit01") == exported.count("call_edit01")
    copied = [m for m in await runtime.sessions.messages(copy.id) if m.kind == "system"]
    assert [m.data.get("source") for m in copied] == ["import"], "the note stays a note through export and import"
    markdown = await runtime.sessions.transfer.export(outcome.session_id, "markdown")
    assert "*** Update File: main.py" in markdown and "*** Add File: NOTES.md" in markdown


async def test_the_database_and_the_export_are_one_source_imported_once_unless_again(
    runtime: Runtime, workdir: Path
) -> None:
    first = await import_file(runtime, "opencode", OPENCODE_EXPORT, location=workdir)
    kept = OPENCODE_DATABASE / OPENCODE_SESSION_ID
    second = await import_file(runtime, "opencode", kept, locate.load("opencode", kept), location=workdir)
    assert first.created and not second.created and second.session_id == first.session_id
    third = await import_file(runtime, "opencode", kept, locate.load("opencode", kept), location=workdir, again=True)
    assert third.created and len(await runtime.sessions.list(workdir)) == 2
    created = (await stored(runtime, third.session_id))[0].event
    assert isinstance(created, ev.SessionCreated) and created.imported_from is not None
    origin = created.imported_from
    assert (origin.agent, origin.id, origin.version, origin.path) == (
        "opencode",
        OPENCODE_SESSION_ID,
        "1.18.33",
        str(kept),
    )
    events = await stored(runtime, third.session_id)
    assert events[0].created == 1796579079274 and events[-1].created > events[0].created
