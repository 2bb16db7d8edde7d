"""GET /api/session/{id}/plan: the live plan over HTTP, through runs, a rewind and a fork."""

from __future__ import annotations

from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider

from .conftest import Api

PLAN = [{"content": "look", "status": "done"}, {"content": "fix", "status": "in_progress"}]
DONE = [{"content": "look", "status": "done"}, {"content": "fix", "status": "done"}]


def _todo(call_id: str, items: list[dict[str, str]]) -> dict[str, object]:
    return {"tool_calls": [{"id": call_id, "name": "todo", "arguments": {"items": items}}]}


async def _turn(api: Api, sid: str, text: str) -> str:
    status, receipt = await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": text})
    assert status == 202, receipt
    await api.wait_idle(sid)
    return str(receipt["input_id"])


async def test_the_plan_follows_the_todo_calls_a_rewind_and_a_fork(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid = await api.create(workdir)
    status, empty = await api.call("GET", f"/api/session/{sid}/plan")
    assert status == 200
    assert empty == {"session_id": sid, "seq": 0, "call_id": None, "items": [], "open": False}

    fake.add(_todo("call_1", PLAN), {"text": "on it"}, _todo("call_2", DONE), {"text": "done"})
    await _turn(api, sid, "plan it")
    status, plan = await api.call("GET", f"/api/session/{sid}/plan")
    assert status == 200 and plan["items"] == PLAN and plan["open"] is True and plan["call_id"] == "call_1"
    second = await _turn(api, sid, "finish")
    status, plan = await api.call("GET", f"/api/session/{sid}/plan")
    assert plan["items"] == DONE and plan["open"] is False and plan["seq"] > 0

    status, child = await api.call("POST", f"/api/session/{sid}/fork", {"at": second})
    assert status == 201, child
    status, forked = await api.call("GET", f"/api/session/{child['id']}/plan")
    assert forked["items"] == PLAN and forked["session_id"] == child["id"]

    status, _ = await api.call("POST", f"/api/session/{sid}/rewind", {"message_id": second, "mode": "conversation"})
    assert status == 200
    status, plan = await api.call("GET", f"/api/session/{sid}/plan")
    assert plan["items"] == PLAN and plan["open"] is True


async def test_an_unknown_session_has_no_plan(api: Api) -> None:
    status, error = await api.call("GET", "/api/session/ses_nope/plan")
    assert status == 404 and error["error"]["type"] == "not-found", error
