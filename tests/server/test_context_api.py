"""API-managed context entries: ``api/<name>`` keys only, any JSON value, durable events."""

from __future__ import annotations

from pathlib import Path

from .conftest import Api, short


async def test_put_read_and_delete(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    status, put = await api.call("PUT", f"/api/session/{sid}/context/api/notes", {"todo": ["tests"], "n": 2})
    assert status == 200 and put == {"key": "api/notes", "value": {"todo": ["tests"], "n": 2}}
    status, put = await api.call("PUT", f"/api/session/{sid}/context/api%2Fticket", "ABC-1")  # encoded slash
    assert status == 200 and put["key"] == "api/ticket"
    status, entries = await api.call("GET", f"/api/session/{sid}/context")
    assert entries == {"api/notes": {"todo": ["tests"], "n": 2}, "api/ticket": "ABC-1"}
    status, _ = await api.call("DELETE", f"/api/session/{sid}/context/api/notes")
    assert status == 204
    status, _ = await api.call("DELETE", f"/api/session/{sid}/context/api/notes")  # absent: nothing written
    assert status == 204
    status, entries = await api.call("GET", f"/api/session/{sid}/context")
    assert entries == {"api/ticket": "ABC-1"}
    types = [short(e["type"]) for e in await api.history(sid)]
    assert types == ["created", "context.put", "context.put", "context.deleted"]


async def test_keys_and_values_are_validated(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    for key, message in [
        ("core/date", "reserved for built-in sources"),
        ("notes", "must look like api/<name>"),
        ("api/", "must look like api/<name>"),
        ("api/a b", "must look like api/<name>"),
    ]:
        for method, body in (("PUT", 1), ("DELETE", None)):
            status, error = await api.call(method, f"/api/session/{sid}/context/{key}", body)
            assert status == 400 and message in error["error"]["message"], (method, key, error)
    status, error = await api.call("PUT", f"/api/session/{sid}/context/api/x", raw=b"")
    assert status == 400 and "empty" in error["error"]["message"]
    status, error = await api.call("PUT", f"/api/session/{sid}/context/api/x", raw=b"NaN-ish{")
    assert status == 400 and "not valid JSON" in error["error"]["message"]
    status, error = await api.call("PUT", "/api/session/ses_gone/context/api/x", 1)
    assert status == 404
    status, error = await api.call("DELETE", "/api/session/ses_gone/context/api/x")
    assert status == 404
    assert [short(e["type"]) for e in await api.history(sid)] == ["created"]
