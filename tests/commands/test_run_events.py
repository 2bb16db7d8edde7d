"""``agent-tui run --format json`` prints only lines that validate against the published JSON Schema
(``docs/run-events.schema.json``): real runs of the installed entry point against the fake provider
over HTTP, one per way a run goes; the schema file is the one the event models generate."""

from __future__ import annotations

import asyncio
import json
import re
import signal
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.commands.run_events import durable_line, live_line, run_events_schema, schema_text
from agent_tui.core.api import events as ev
from agent_tui.testing.fake_provider import FakeProvider

from .installed import SCHEMA_FILE, checked_lines, installed, validator  # noqa: F401 (fixture)
from .test_run_cmd import Cli, session_of

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user-guide.md"
SUMMARY = "## Objective\nShip the parser fix.\n## Next Move\nRun the tests."


def durable_types(lines: list[dict[str, Any]]) -> list[str]:
    return [line["type"] for line in lines if not line.get("live")]


def test_the_published_schema_is_the_one_the_event_models_generate() -> None:
    assert SCHEMA_FILE.read_text() == schema_text(), "regenerate: python -m agent_tui.commands.run_events"
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA_FILE.read_text()))


def test_the_user_guide_names_every_event_type_and_live_kind() -> None:
    defs = run_events_schema()["$defs"]
    named = set(re.findall(r"`([a-z_.]+(?:\.\d)?)`", GUIDE.read_text()))
    rows = "\n".join(line for line in GUIDE.read_text().splitlines() if line.startswith("| `"))
    for short in re.findall(r"/ `?\.([a-z_.]+\.\d)`?", rows):  # "`session.x.started.1` / `.ended.1`"
        named.update(t.rsplit(".", 2)[0] + "." + short for t in defs["durable"]["properties"]["type"]["enum"])
    missing = set(defs["durable"]["properties"]["type"]["enum"]) - named
    missing |= set(defs["live"]["properties"]["kind"]["enum"]) - named
    assert not missing, sorted(missing)


def test_a_line_off_the_schema_is_refused() -> None:
    check = validator()
    good = {"session_id": "ses_1", "seq": 1, "type": "session.execution.failed.1", "created": 1, "data": {}}
    assert not check.is_valid(good)  # execution.failed needs its error
    good["data"] = {"error": {"type": "provider.auth", "message": "bad key", "retry_after_ms": None}}
    assert check.is_valid(good), list(check.iter_errors(good))
    assert not check.is_valid({**good, "type": "session.made.up.1"})
    assert not check.is_valid({**good, "extra": 1})
    assert not check.is_valid({"live": True, "session_id": "ses_1", "kind": "text.delta", "delta": "x"})
    assert not check.is_valid({"live": True, "session_id": "ses_1", "kind": "head", "head_seq": 3})


WORDS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(text=WORDS, delta=WORDS, call_input=st.dictionaries(WORDS, st.one_of(WORDS, st.integers()), max_size=3))
def test_any_text_the_model_writes_prints_as_lines_that_validate_and_keep_it(
    text: str, delta: str, call_input: dict[str, Any]
) -> None:
    """Control characters, line and paragraph separators, bidi marks: each line stays one line of
    JSON that validates, and parses back to exactly what the model wrote."""
    check = validator()
    events = [
        ev.TextEnded(assistant_message_id="msg_a", ordinal=0, text=text),
        ev.ToolCalled(assistant_message_id="msg_a", call_id="call_1", name="echo", input=call_input),
    ]
    printed = [
        durable_line(ev.StoredEvent(session_id="ses_1", seq=seq, type=e.TYPE, created=1, event=e))
        for seq, e in enumerate(events, start=1)
    ]
    printed.append(live_line(ev.TextDelta(session_id="ses_1", assistant_message_id="msg_a", ordinal=0, delta=delta)))
    for line in printed:
        assert line is not None and "\n" not in line and "\r" not in line and "\x1b" not in line
        assert check.is_valid(json.loads(line)), line
    ended, called, live = (json.loads(line) for line in printed if line is not None)
    assert ended["data"]["text"] == text and called["data"]["input"] == call_input and live["delta"] == delta


async def test_a_text_answer(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"text": "streamed words here", "chunks": 3, "usage": {"input": 10, "output": 3, "cost": 0.001}})
    code, out, err = await installed.run("--format", "json", "go")
    assert code == 0, err
    lines = checked_lines(out)
    sid = session_of(err)
    assert {line["session_id"] for line in lines} == {sid}  # stored lines carry it too
    assert durable_types(lines)[-1] == "session.execution.succeeded.1"
    assert any(line.get("kind") == "text.delta" for line in lines)


async def test_tool_calls_and_a_denied_one(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add(
        {"tool_calls": [{"id": "call_e", "name": "echo", "arguments": {"text": "pong"}}]},
        {"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": "touch ran.txt"}}]},
        {"text": "could not run it"},
    )
    code, out, err = await installed.run("--format", "json", "go")  # --permission deny: the model is told
    assert code == 0, err
    types = durable_types(checked_lines(out))
    assert types.count("session.tool.success.1") == 1 and types.count("session.tool.failed.1") == 1
    assert "session.permission.asked.1" in types and "session.permission.replied.1" in types
    assert not (installed.workdir / "ran.txt").exists()


async def test_a_refusal_that_stops_the_run(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": "touch ran.txt"}}]})
    code, out, err = await installed.run("--format", "json", "--permission", "stop", "go")
    assert code == 4, err
    lines = checked_lines(out)
    assert lines[-1]["type"] == "session.execution.failed.1"
    assert lines[-1]["data"]["error"]["type"] == "permission.rejected"


async def test_a_provider_error(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"error": {"status": 401, "kind": "auth", "message": "bad key"}})
    code, out, err = await installed.run("--format", "json", "hi")
    assert code == 1 and "provider.auth" in err
    lines = checked_lines(out)
    assert lines[-1]["type"] == "session.execution.failed.1" and lines[-1]["data"]["error"]["type"] == "provider.auth"


async def test_an_interrupted_run(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {"label": "events"}}]})
    proc = await installed.start("run", *installed.model_flags(), "--format", "json", "block")
    await installed.wait_mark("block events")
    proc.send_signal(signal.SIGINT)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 130, err.decode()
    lines = checked_lines(out.decode())
    assert durable_types(lines)[-3:] == [
        "session.tool.failed.1",
        "session.step.failed.1",
        "session.execution.interrupted.1",
    ]


async def test_structured_output(installed: Cli, fake: FakeProvider, workdir: Path) -> None:  # noqa: F811
    schema = workdir / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}))
    fake.add(
        {"text": "it is three"},
        {"tool_calls": [{"id": "call_f", "name": "final_answer", "arguments": {"n": 3}}]},
    )
    code, out, err = await installed.run("--format", "json", "--output-schema", str(schema), "how many?")
    assert code == 0, err
    lines = checked_lines(out)
    (answer,) = [line for line in lines if line.get("type") == "session.tool.success.1"]
    assert answer["data"]["output"]["data"]["value"] == {"n": 3}


async def test_a_compaction_after_an_overflow(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"text": "pong"}}]}, {"text": "one"})
    code, _, err = await installed.run("first")
    assert code == 0, err
    fake.add(
        {"error": {"status": 400, "kind": "context_overflow"}},
        {"text": SUMMARY, "chunks": 3, "usage": {"input": 200, "output": 20}},
        {"text": "recovered"},
    )
    code, out, err = await installed.run("--continue", "--format", "json", "second")
    assert code == 0, err
    lines = checked_lines(out)
    types = durable_types(lines)
    assert "session.compaction.started.1" in types and "session.compaction.ended.1" in types
    assert any(line.get("kind") == "compaction.delta" for line in lines)
    (ended,) = [line for line in lines if line.get("type") == "session.compaction.ended.1"]
    assert ended["data"]["usage"]["input_tokens"] == 200  # what the summary call spent
