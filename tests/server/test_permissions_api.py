"""A real bash call asks; the HTTP reply lets the run continue in the server's process."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_tui.testing.fake_provider import FakeProvider

from .conftest import Api, short


async def _asks(api: Api, sid: str) -> list[dict[str, Any]]:
    async def first() -> list[dict[str, Any]]:
        while True:
            status, asks = await api.call("GET", f"/api/session/{sid}/permissions")
            assert status == 200
            if asks["data"]:
                return asks["data"]
            await asyncio.sleep(0.01)

    return await asyncio.wait_for(first(), 20)


def _bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": command}}]}


async def test_reply_once_lets_the_tool_run(api: Api, fake: FakeProvider, workdir: Path) -> None:
    fake.add(_bash("echo made > made.txt"), {"text": "done"})
    sid = await api.create(workdir)
    await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "make a file"})
    asks = await _asks(api, sid)
    assert len(asks) == 1 and asks[0]["action"] == "bash" and asks[0]["reply"] is None
    assert asks[0]["detail"]["command"] == "echo made > made.txt"
    request_id = asks[0]["request_id"]
    status, error = await api.call("POST", f"/api/permission/{request_id}/reply", {"reply": "maybe"})
    assert status == 400 and "body field reply" in error["error"]["message"]
    status, answered = await api.call("POST", f"/api/permission/{request_id}/reply", {"reply": "once"})
    assert status == 200 and answered["reply"] == "once" and answered["request_id"] == request_id
    await api.wait_idle(sid)
    assert (workdir / "made.txt").read_text() == "made\n"
    types = [short(e["type"]) for e in await api.history(sid)]
    assert types.index("permission.asked") < types.index("permission.replied") < types.index("tool.success")
    assert types[-1] == "execution.succeeded"
    status, asks = await api.call("GET", f"/api/session/{sid}/permissions")
    assert asks["data"] == []
    status, error = await api.call("POST", f"/api/permission/{request_id}/reply", {"reply": "reject"})
    assert status == 409 and "already answered" in error["error"]["message"]


async def test_reject_with_a_message_reaches_the_model(api: Api, fake: FakeProvider, workdir: Path) -> None:
    fake.add(_bash("rm -rf build"), {"text": "ok, keeping it"})
    sid = await api.create(workdir)
    await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "clean up"})
    asks = await _asks(api, sid)
    status, answered = await api.call(
        "POST",
        f"/api/permission/{asks[0]['request_id']}/reply",
        {"reply": "reject", "message": "keep the build folder"},
    )
    assert status == 200 and answered["message"] == "keep the build folder"
    await api.wait_idle(sid)
    assert "keep the build folder" in str(fake.accepted[-1].body)


async def test_unknown_request_is_404(api: Api) -> None:
    status, error = await api.call("POST", "/api/permission/per_nope/reply", {"reply": "once"})
    assert status == 404 and error["error"] == {"type": "not-found", "message": "unknown permission request: per_nope"}
