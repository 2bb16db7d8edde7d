"""Rewind over HTTP: list, preview, rewind, undo; refusals as 4xx with ``{error: {type, message}}``."""

from __future__ import annotations

from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider

from .conftest import Api, short

BASH = "echo made > made.txt && echo after > mod.txt"


async def _session(api: Api, fake: FakeProvider, workdir: Path) -> tuple[str, str]:
    (workdir / "mod.txt").write_text("before\n")
    fake.add(
        {"text": "hi"},
        {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": BASH}}]},
        {"text": "done"},
    )
    sid = await api.create(workdir)
    for text in ("say hi", "change files"):
        status, _ = await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": text})
        assert status in (200, 202), _
        if text == "change files":
            await api.wait_event(sid, "permission.asked")
            _, asks = await api.call("GET", f"/api/session/{sid}/permissions")
            status, _ = await api.call(
                "POST", f"/api/permission/{asks['data'][0]['request_id']}/reply", {"reply": "once"}
            )
            assert status == 200
        await api.wait_idle(sid)
    status, points = await api.call("GET", f"/api/session/{sid}/rewind")
    assert status == 200 and [p["text"] for p in points["data"]] == ["change files", "say hi"]
    return sid, points["data"][0]["message_id"]


async def test_preview_rewind_and_undo(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid, target = await _session(api, fake, workdir)
    status, preview = await api.call("GET", f"/api/session/{sid}/rewind/preview", params={"message_id": target})
    assert status == 200 and sorted((c["path"], c["change"]) for c in preview["changed"]) == [
        ("made.txt", "deleted"),
        ("mod.txt", "modified"),
    ]
    assert "-after" in preview["diff"] and "+before" in preview["diff"]
    assert (workdir / "made.txt").exists(), "a preview changes nothing"
    status, result = await api.call("POST", f"/api/session/{sid}/rewind", {"message_id": target, "mode": "both"})
    assert status == 200, result
    assert result["prompt"] == "change files" and len(result["changed"]) == 2
    assert not (workdir / "made.txt").exists() and (workdir / "mod.txt").read_text() == "before\n"
    status, messages = await api.call("GET", f"/api/session/{sid}/messages")
    assert [m["kind"] for m in messages["data"]] == ["user", "assistant"]
    status, undone = await api.call("POST", f"/api/session/{sid}/rewind/undo")
    assert status == 200 and undone["mode"] is None and len(undone["changed"]) == 2
    assert (workdir / "made.txt").read_text() == "made\n"
    assert [short(e["type"]) for e in await api.history(sid)][-2:] == ["rewound", "rewind.undone"]


async def test_refusals(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid, target = await _session(api, fake, workdir)
    other = await api.create(workdir)
    before = await api.history(sid)
    cases = [
        ("POST", "/api/session/ses_nope/rewind", {"message_id": target}, 404, "unknown session"),
        ("POST", f"/api/session/{sid}/rewind", {"message_id": "msg_nope"}, 404, "unknown message msg_nope"),
        ("POST", f"/api/session/{other}/rewind", {"message_id": target}, 404, f"belongs to session {sid}"),
        ("POST", f"/api/session/{sid}/rewind", {"message_id": target, "mode": "sideways"}, 400, "mode"),
        ("POST", f"/api/session/{sid}/rewind/undo", None, 409, "no rewind to undo"),
    ]
    for method, path, body, code, text in cases:
        status, error = await api.call(method, path, body)
        assert status == code and text in error["error"]["message"], (path, body, error)
        assert set(error["error"]) == {"type", "message"}
    assert await api.history(sid) == before


async def test_fork_over_http(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid, target = await _session(api, fake, workdir)
    status, whole = await api.call("POST", f"/api/session/{sid}/fork")
    assert status == 201 and whole["parent_id"] == sid
    status, messages = await api.call("GET", f"/api/session/{whole['id']}/messages")
    status, parent = await api.call("GET", f"/api/session/{sid}/messages")
    assert [m["kind"] for m in messages["data"]] == [m["kind"] for m in parent["data"]]
    status, early = await api.call("POST", f"/api/session/{sid}/fork", {"at": target})
    assert status == 201
    status, messages = await api.call("GET", f"/api/session/{early['id']}/messages")
    assert [m["kind"] for m in messages["data"]] == ["user", "assistant"]
    status, error = await api.call("POST", f"/api/session/{sid}/fork", {"at": "msg_nope"})
    assert status == 404 and "unknown message msg_nope" in error["error"]["message"]
    status, error = await api.call("POST", "/api/session/ses_nope/fork")
    assert status == 404


async def test_rename_and_delete_over_http(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid, _ = await _session(api, fake, workdir)
    status, renamed = await api.call("POST", f"/api/session/{sid}/rename", {"title": "  A better\ntitle "})
    assert status == 200 and renamed["title"] == "A better title"
    status, error = await api.call("POST", f"/api/session/{sid}/rename", {"title": "   "})
    assert status == 400 and "cannot be empty" in error["error"]["message"]
    status, child = await api.call("POST", f"/api/session/{sid}/fork")
    status, error = await api.call("DELETE", f"/api/session/{sid}")
    assert status == 409 and "has forks" in error["error"]["message"]
    assert (await api.call("DELETE", f"/api/session/{child['id']}"))[0] == 204
    assert (await api.call("DELETE", f"/api/session/{sid}"))[0] == 204
    assert (await api.call("GET", f"/api/session/{sid}"))[0] == 404
    assert (await api.call("DELETE", f"/api/session/{sid}"))[0] == 404


async def test_with_snapshots_off_the_preview_names_the_call_and_a_files_rewind_is_refused(
    api: Api, fake: FakeProvider, workdir: Path
) -> None:
    (workdir / ".agent-tui").mkdir()
    (workdir / ".agent-tui" / "config.toml").write_text("[snapshots]\nenabled = false\n")
    sid, target = await _session(api, fake, workdir)
    before = await api.history(sid)
    status, preview = await api.call("GET", f"/api/session/{sid}/rewind/preview", params={"message_id": target})
    assert status == 200 and preview["changed"] == []
    assert [(u["tool"], u["call_id"], u["detail"]) for u in preview["unrestorable"]] == [("bash", "call_1", BASH)]
    assert "snapshots are off" in preview["unrestorable"][0]["why"] and "bash call_1" in preview["refusal"]
    for mode in ("files", "both"):
        status, error = await api.call("POST", f"/api/session/{sid}/rewind", {"message_id": target, "mode": mode})
        assert status == 409 and error["error"]["message"] == preview["refusal"], error
    assert await api.history(sid) == before
    assert (workdir / "made.txt").read_text() == "made\n" and (workdir / "mod.txt").read_text() == "after\n"
