"""Export (reference 002 JSONL, Markdown) and import: a real run, then the round trip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.store.store import Store
from agent_tui.core.transfer.import_jsonl import NotAnExport
from agent_tui.testing.fake_provider import FakeProvider

from ..history.test_rewind import _turn

VOLATILE = {"run_id", "session_id", "ts", "started_at", "message_id"}  # ids an import makes anew


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(policy="allow", tools="all") as opened:
        yield opened


async def _session(runtime: Runtime, fake: FakeProvider, workdir: Path) -> str:
    fake.add(
        {
            "reasoning": "Think first.",
            "text": "Looking.",
            "tool_calls": [
                {"id": "call_1", "name": "bash", "arguments": {"command": "echo hi"}},
                {"id": "call_2", "name": "read", "arguments": {"path": "missing.txt"}},
            ],
            "usage": {"input": 100, "output": 20},
        },
        {"text": "Done: it said hi.", "usage": {"input": 150, "output": 10}},
        {"text": "Second answer."},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await _turn(runtime, sid, "run echo")
    await _turn(runtime, sid, "and then?")
    return sid


async def test_jsonl_export_follows_reference_002_and_round_trips(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    sid = await _session(runtime, fake, workdir)
    exported = await runtime.sessions.transfer.export(sid)
    records = [json.loads(line) for line in exported.splitlines()]
    assert records[0]["type"] == "header" and records[0]["schema_version"] == 1
    types = [r["type"] for r in records]
    assert types[:2] == ["header", "run.start"] and types[-2:] == ["run.status", "run.end"]
    assert types.count("run.start") == types.count("run.end") == 2
    assert all("ts" in r for r in records[1:])
    requests = [r for r in records if r["type"] == "llm.request"]
    responses = [r for r in records if r["type"] == "llm.response"]
    assert [r["seq"] for r in requests] == [r["seq"] for r in responses] == [1, 2, 3]
    assert responses[0]["output"]["usage"]["input_tokens"] == 100
    assert [c["id"] for c in responses[0]["output"]["messages"][0]["tool_calls"]] == ["call_1", "call_2"]
    outputs = {r["tool_call_id"]: r for r in records if r["type"] == "tool.output"}
    assert "hi" in outputs["call_1"]["result_raw"] and not outputs["call_1"]["is_error"]
    assert outputs["call_2"]["is_error"]
    assert records[-1]["outcome"] == "completed" and records[-1]["final"] == "Second answer."

    copy = await runtime.sessions.transfer.import_session(exported, location=workdir)
    assert copy.id != sid
    again = [json.loads(line) for line in (await runtime.sessions.transfer.export(copy.id)).splitlines()]
    assert _stable(again) == _stable(records)


async def test_import_refuses_what_is_not_an_export_and_writes_nothing(runtime: Runtime, workdir: Path) -> None:
    before = await runtime.sessions.list(limit=100)
    header = json.dumps({"type": "header", "schema_version": 1, "meta": {}})
    cases = [
        ("hello world\n", "line 1 is not JSON"),
        ('{"type": "run.start"}\n', "no header record first"),
        ('{"type": "header", "schema_version": 2}\n', "schema_version 2 is not supported"),
        (header + '\n{"type": "run.start", "input": {}}\n', r"record 2 \(run.start\) does not fit: no field 'text'"),
        ("", "no header record first"),
    ]
    for text, message in cases:
        with pytest.raises(NotAnExport, match=message):
            await runtime.sessions.transfer.import_session(text, location=workdir, source="f.jsonl")
    assert await runtime.sessions.list(limit=100) == before
    unknown = (
        header
        + '\n{"type": "x.other.thing", "z": 1}\n{"type": "run.start", "input": {"type": "text", "text": "hi"}, "new": 1}\n'
    )
    imported = await runtime.sessions.transfer.import_session(unknown, location=workdir)
    assert [m.kind for m in await runtime.sessions.messages(imported.id)] == ["user"], (
        "unknown records and fields are ignored"
    )


async def test_markdown_export_shows_every_block_kind(store: Store, tmp_path: Path) -> None:
    from agent_tui.core.sessions import Sessions

    from ..conftest import every_event_script

    for event in every_event_script(str(tmp_path), str(tmp_path))["ses_main"][:-11]:  # before the rewinds
        await store.publish("ses_main", event)
    await store.publish("ses_main", ev.PromptAdmitted(input_id="msg_u9", prompt=ev.text_prompt("last one")))
    await store.publish("ses_main", ev.PromptPromoted(input_id="msg_u9"))
    text = await Sessions(store).transfer.export("ses_main", "markdown")
    assert text.startswith("# Parser bug hunt\n")
    for piece in [
        "## User\n\nFix the parser bug\nin detail",
        "## Assistant",
        "<details><summary>reasoning</summary>",
        "Looking at the parser",
        "<details><summary>✓ tool <code>bash</code></summary>",
        '"command": "ls"',
        "a.py",
        "<details><summary>✗ tool <code>read</code></summary>",
        "no such file",
        "> **error** (aborted): stop",
        "<details><summary>compacted (manual)</summary>",
        "## Objective",
        "> **compaction failed**: boom",
        "<details><summary>instructions updated</summary>",
        "AGENTS.md changed",
        "<details><summary>hook output</summary>",
        "## User\n\nlast one",
    ]:
        assert piece in text, piece
