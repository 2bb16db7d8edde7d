"""Prompts that really run (fake provider over HTTP), idempotent admission, the inbox, interrupt."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.api import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import Api, short


async def test_create_prompt_history_end_to_end(api: Api, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "Hello from the fake model", "chunks": 3})
    sid = await api.create(workdir)
    status, receipt = await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "say hello"})
    assert status == 202
    assert receipt["session_id"] == sid and receipt["kind"] == "prompt" and receipt["delivery"] == "steer"
    assert receipt["input_id"].startswith("msg_")
    await api.wait_idle(sid)
    events = await api.history(sid)
    types = [short(e["type"]) for e in events]
    assert types[:3] == ["created", "prompt.admitted", "execution.started"]
    assert types[-2:] == ["step.ended", "execution.succeeded"]
    assert "prompt.promoted" in types
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    ended = next(e for e in events if short(e["type"]) == "text.ended")
    assert ended["data"]["text"] == "Hello from the fake model"
    status, messages = await api.call("GET", f"/api/session/{sid}/messages")
    assert status == 200 and [m["kind"] for m in messages["data"]] == ["user", "assistant"]
    assert messages["data"][0]["id"] == receipt["input_id"]
    status, session = await api.call("GET", f"/api/session/{sid}")
    assert session["title"] == "say hello" and session["head_seq"] == events[-1]["seq"]


async def test_history_pages_default_50_and_at_most_100(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    for n in range(119):
        await api.call("POST", f"/api/session/{sid}/model", {"model": f"openai/m{n}"})
    status, page = await api.call("GET", f"/api/session/{sid}/history")
    assert status == 200 and len(page["data"]) == 50 and page["has_more"] is True
    assert [e["seq"] for e in page["data"]] == list(range(1, 51))
    status, page = await api.call("GET", f"/api/session/{sid}/history", params={"after": 50, "limit": 100})
    assert [e["seq"] for e in page["data"]] == list(range(51, 121)) and page["has_more"] is False
    for bad in ({"limit": 101}, {"limit": 0}, {"after": -1}):
        status, error = await api.call("GET", f"/api/session/{sid}/history", params=bad)
        assert status == 400 and error["error"]["type"] == "invalid-request", bad


async def test_messages_page_forwards_and_backwards(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid = await api.create(workdir)
    for n in range(3):
        fake.add({"text": f"answer {n}"})
        await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": f"question {n}"})
        await api.wait_idle(sid)
    status, first = await api.call("GET", f"/api/session/{sid}/messages", params={"limit": 2})
    assert [m["kind"] for m in first["data"]] == ["user", "assistant"] and first["has_more"] is True
    status, rest = await api.call("GET", f"/api/session/{sid}/messages", params={"after": first["data"][-1]["seq"]})
    assert len(rest["data"]) == 4 and rest["has_more"] is False
    newest = rest["data"][-1]["seq"] + 1
    status, tail = await api.call("GET", f"/api/session/{sid}/messages", params={"before": newest, "limit": 2})
    assert [m["data"] for m in tail["data"]] == [m["data"] for m in rest["data"][-2:]] and tail["has_more"] is True


async def test_idempotent_prompt_and_conflict(api: Api, runtime: Runtime, workdir: Path) -> None:
    sid = await api.create(workdir)
    body = {"id": "msg_client_1", "prompt": "hold on", "delivery": "queue", "resume": False}
    status, first = await api.call("POST", f"/api/session/{sid}/prompt", body)
    status2, again = await api.call("POST", f"/api/session/{sid}/prompt", body)
    assert status == status2 == 202 and first == again and first["input_id"] == "msg_client_1"
    for changed, detail in [({"prompt": "other text"}, "different prompt"), ({"delivery": "steer"}, "delivery queue")]:
        status, error = await api.call("POST", f"/api/session/{sid}/prompt", {**body, **changed})
        assert status == 409 and error["error"]["type"] == "conflict"
        assert detail in error["error"]["message"]
    other = await api.create(workdir)
    status, error = await api.call("POST", f"/api/session/{other}/prompt", body)
    assert status == 409 and f"already admitted to session {sid}" in error["error"]["message"]
    admitted = [e for e in await api.history(sid) if short(e["type"]) == "prompt.admitted"]
    assert len(admitted) == 1
    assert runtime.sessions.active() == {}  # resume=false admitted without running


async def test_prompt_parts_and_bad_prompts(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid = await api.create(workdir)
    status, receipt = await api.call(
        "POST", f"/api/session/{sid}/prompt", {"prompt": [{"type": "text", "text": "as parts"}], "resume": False}
    )
    assert status == 202
    status, pending = await api.call("GET", f"/api/session/{sid}/pending")
    assert pending["data"][0]["prompt"] == [{"type": "text", "text": "as parts"}]
    for body, message in [
        ({"prompt": "   "}, "the prompt is empty"),
        ({"prompt": [{"type": "video", "url": "x"}]}, "invalid prompt part"),
        ({"prompt": "x", "delivery": "later"}, "body field delivery"),
        ({}, "body field prompt: Field required"),
    ]:
        status, error = await api.call("POST", f"/api/session/{sid}/prompt", body)
        assert status == 400 and message in error["error"]["message"], (body, error)


async def test_pending_and_withdraw(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    await api.call("POST", f"/api/session/{sid}/prompt", {"id": "msg_a", "prompt": "one", "resume": False})
    await api.call(
        "POST", f"/api/session/{sid}/prompt", {"id": "msg_b", "prompt": "two", "delivery": "queue", "resume": False}
    )
    status, pending = await api.call("GET", f"/api/session/{sid}/pending")
    assert status == 200 and [(p["id"], p["delivery"]) for p in pending["data"]] == [
        ("msg_a", "steer"),
        ("msg_b", "queue"),
    ]
    status, _ = await api.call("DELETE", f"/api/session/{sid}/pending/msg_a")
    assert status == 204
    status, pending = await api.call("GET", f"/api/session/{sid}/pending")
    assert [p["id"] for p in pending["data"]] == ["msg_b"]
    status, error = await api.call("DELETE", f"/api/session/{sid}/pending/msg_a")
    assert status == 409 and "already withdrawn" in error["error"]["message"]
    status, error = await api.call("DELETE", f"/api/session/{sid}/pending/msg_nope")
    assert status == 404 and "unknown input msg_nope" in error["error"]["message"]


async def test_compact_is_one_coalesced_barrier(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    status, first = await api.call("POST", f"/api/session/{sid}/compact", {"resume": False})
    assert status == 202 and first["kind"] == "compaction" and first["session_id"] == sid
    status, again = await api.call("POST", f"/api/session/{sid}/compact", {"resume": False})
    assert status == 202 and again == first
    status, pending = await api.call("GET", f"/api/session/{sid}/pending")
    assert [(p["id"], p["kind"]) for p in pending["data"]] == [(first["input_id"], "compaction")]
    status, third = await api.call("POST", f"/api/session/{sid}/compact")  # no body: resume
    assert third == first
    await api.wait_idle(sid)
    types = [short(e["type"]) for e in await api.history(sid)]
    assert types.count("compaction.admitted") == 1
    status, error = await api.call("POST", f"/api/session/{sid}/compact", {"resume": "soon"})
    assert status == 400 and "body field resume" in error["error"]["message"]


async def test_interrupt_a_running_session(api: Api, runtime: Runtime, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {}}]})
    sid = await api.create(workdir)
    await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "block please"})
    await api.wait_event(sid, "tool.called")
    status, active = await api.call("GET", "/api/session/active")
    assert active == {sid: {"type": "running"}}
    status, result = await api.call("POST", f"/api/session/{sid}/interrupt")
    assert status == 200 and result == {"session_id": sid, "was_running": True}
    status, active = await api.call("GET", "/api/session/active")
    assert active == {}
    events = await api.history(sid)
    failed = next(e for e in events if short(e["type"]) == "tool.failed")
    assert failed["data"]["error"]["message"] == "Tool execution interrupted"
    assert short(events[-1]["type"]) == "execution.interrupted" and events[-1]["data"]["reason"] == "user"
    status, result = await api.call("POST", f"/api/session/{sid}/interrupt")
    assert result == {"session_id": sid, "was_running": False}


async def test_the_queue_is_reordered_over_http(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    for name in ("msg_a", "msg_b", "msg_c"):
        await api.call(
            "POST", f"/api/session/{sid}/prompt", {"id": name, "prompt": name, "delivery": "queue", "resume": False}
        )
    status, _ = await api.call("PUT", f"/api/session/{sid}/queue", {"order": ["msg_c", "msg_a", "msg_b"]})
    assert status == 204
    status, pending = await api.call("GET", f"/api/session/{sid}/pending")
    assert {p["id"]: p["queue_rank"] for p in pending["data"]} == {"msg_c": 2, "msg_a": 3, "msg_b": 4}
    status, error = await api.call("PUT", f"/api/session/{sid}/queue", {"order": ["msg_a"]})
    assert status == 409 and "every queued input" in error["error"]["message"]


async def test_the_queue_is_paused_and_resumed_over_http(api: Api, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "ran"})
    sid = await api.create(workdir)
    status, _ = await api.call("PUT", f"/api/session/{sid}/queue/paused", {"paused": True})
    assert status == 204
    await api.call("POST", f"/api/session/{sid}/prompt", {"id": "msg_q", "prompt": "later", "delivery": "queue"})
    await api.wait_idle(sid)
    status, pending = await api.call("GET", f"/api/session/{sid}/pending")
    assert [p["id"] for p in pending["data"]] == ["msg_q"] and fake.requests == []
    status, _ = await api.call("PUT", f"/api/session/{sid}/queue/paused", {"paused": False})
    assert status == 204
    await api.wait_idle(sid)
    status, pending = await api.call("GET", f"/api/session/{sid}/pending")
    assert pending["data"] == [] and len(fake.accepted) == 1
