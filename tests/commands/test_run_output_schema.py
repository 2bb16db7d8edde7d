"""``agent-tui run --output-schema FILE``: the real entry point in a subprocess, the fake provider
over HTTP; the final answer comes through the generated ``final_answer`` tool, checked against the
schema, printed alone on stdout; one repair prompt forces the tool; then a distinct exit code."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider

from .test_run_cmd import Cli, cli, session_of  # noqa: F401 (fixture)

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
    "required": ["name", "count"],
    "additionalProperties": False,
}
FORCED = {"type": "function", "function": {"name": "final_answer"}}


def schema_file(workdir: Path, schema: object, name: str = "schema.json") -> str:
    path = workdir / name
    path.write_text(json.dumps(schema))
    return str(path)


def tool_names(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def final_answer(arguments: object, call_id: str = "call_f") -> dict:
    return {"tool_calls": [{"id": call_id, "name": "final_answer", "arguments": arguments}]}


async def test_wrong_then_right_prints_only_the_json(cli: Cli, fake: FakeProvider, workdir: Path) -> None:  # noqa: F811
    """Plain text first (the repair prompt follows, forcing the tool), then arguments the schema
    refuses (the model reads why), then a valid answer: exit 0 and the value alone on stdout."""
    fake.add(
        {"text": "It is called widget, and there are 3."},
        final_answer('{"name": "widget", "count": '),  # invalid JSON
        final_answer({"name": "widget", "count": "3"}, "call_g"),  # JSON the schema refuses
        final_answer({"name": "widget \x1b[2J", "count": 3}, "call_h"),
    )
    code, out, err = await cli.run("--output-schema", schema_file(workdir, SCHEMA), "name and count?")
    assert code == 0, err
    assert out == '{"name":"widget \\u001b[2J","count":3}\n'
    assert json.loads(out) == {"name": "widget \x1b[2J", "count": 3}
    first, repair, *rest = [request.body for request in fake.accepted]
    assert len(rest) == 2  # no request after the accepted answer
    (spec,) = [tool["function"] for tool in first["tools"] if tool["function"]["name"] == "final_answer"]
    assert spec["parameters"] == SCHEMA
    assert "read" in tool_names(first) and "tool_choice" not in first
    assert repair["tool_choice"] == FORCED and rest[0]["tool_choice"] == FORCED
    assert "Call final_answer now" in json.dumps(repair["messages"][-1])
    refused = json.dumps(rest[1]["messages"][-2])  # the third step of the repair is its last: a reminder follows
    assert "does not match the schema" in refused and "count" in refused
    assert "final step allowed" in json.dumps(rest[1]["messages"][-1]) and tool_names(rest[1]) == ["final_answer"]


async def test_the_turn_ends_with_the_accepted_answer(cli: Cli, fake: FakeProvider, workdir: Path) -> None:  # noqa: F811
    """A schema that is no object is the property ``answer``; the step that gave it is the last."""
    fake.add(final_answer({"answer": ["a", "b"]}), {"text": "never asked for"})
    schema = {"type": "array", "items": {"type": "string"}}
    code, out, err = await cli.run("--output-schema", schema_file(workdir, schema), "list them")
    assert code == 0, err
    assert out == '["a","b"]\n'
    assert len(fake.accepted) == 1 and fake.remaining == 1
    (spec,) = [
        tool["function"] for tool in fake.accepted[0].body["tools"] if tool["function"]["name"] == "final_answer"
    ]
    assert spec["parameters"] == {"type": "object", "properties": {"answer": schema}, "required": ["answer"]}
    log = await cli.log(session_of(err))
    assert log[-1]["type"] == "session.execution.succeeded.1"


async def test_no_answer_after_the_repair_exits_3(cli: Cli, fake: FakeProvider, workdir: Path) -> None:  # noqa: F811
    fake.add({"text": "widget, 3"}, {"text": "still plain text"})
    code, out, err = await cli.run("--output-schema", schema_file(workdir, SCHEMA), "name and count?")
    assert code == 3
    assert out == ""
    assert "no final answer matching the output schema, even after a repair prompt" in err
    assert len(fake.accepted) == 2 and fake.accepted[1].body["tool_choice"] == FORCED


async def test_a_bad_schema_file_exits_2_before_any_request(cli: Cli, fake: FakeProvider, workdir: Path) -> None:  # noqa: F811
    code, out, err = await cli.run("--output-schema", schema_file(workdir, {"type": "nonsense"}), "hi")
    assert code == 2 and out == ""
    assert "is not a valid JSON Schema" in err and "session " not in err
    code, out, err = await cli.run("--output-schema", str(workdir / "missing.json"), "hi")
    assert code == 2 and "cannot read the output schema" in err
    (workdir / "broken.json").write_text("{not json")
    code, out, err = await cli.run("--output-schema", str(workdir / "broken.json"), "hi")
    assert code == 2 and "is not JSON" in err
    assert fake.requests == []
