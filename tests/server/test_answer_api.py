"""Structured output over HTTP: a prompt's ``output_schema``, the answer at ``GET /answer``."""

from __future__ import annotations

from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider

from .conftest import Api

SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}


def _answer(call_id: str, arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"id": call_id, "name": "final_answer", "arguments": arguments}]}


async def test_a_prompt_with_a_schema_ends_with_the_accepted_answer(
    api: Api, fake: FakeProvider, workdir: Path
) -> None:
    sid = await api.create(workdir)
    status, none = await api.call("GET", f"/api/session/{sid}/answer")
    assert status == 200 and none == {"session_id": sid, "seq": 0, "call_id": None, "value": None}

    fake.add(_answer("call_1", {"count": "two"}), _answer("call_2", {"count": 2}), {"text": "never asked for"})
    status, receipt = await api.call(
        "POST", f"/api/session/{sid}/prompt", {"prompt": "how many?", "output_schema": SCHEMA}
    )
    assert status == 202, receipt
    await api.wait_idle(sid)
    status, found = await api.call("GET", f"/api/session/{sid}/answer")
    assert status == 200 and found["value"] == {"count": 2} and found["call_id"] == "call_2" and found["seq"] > 0
    assert len(fake.accepted) == 2 and fake.remaining == 1  # the accepted answer ended the turn
    offered = [tool["function"] for tool in fake.accepted[0].body["tools"]]
    assert {"name": "final_answer", "parameters": SCHEMA}.items() <= {**offered[-1]}.items()
    status, later = await api.call("GET", f"/api/session/{sid}/answer", params={"after": found["seq"]})
    assert status == 200 and later["seq"] == 0


async def test_an_invalid_schema_is_a_400_and_nothing_is_admitted(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid = await api.create(workdir)
    body = {"prompt": "hi", "output_schema": {"type": 12}}
    status, error = await api.call("POST", f"/api/session/{sid}/prompt", body)
    assert status == 400 and "invalid output schema" in error["error"]["message"], error
    status, pending = await api.call("GET", f"/api/session/{sid}/pending")
    assert pending["data"] == [] and fake.requests == []
