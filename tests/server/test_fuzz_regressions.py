"""What the schemathesis fuzz found: each was a 500 and is now a clear 400."""

from __future__ import annotations

from pathlib import Path

from .conftest import Api


async def test_a_sequence_beyond_sqlite_integers_is_a_400(api: Api, tmp_path: Path) -> None:
    sid = await api.create(tmp_path)
    cases = [
        (f"/api/session/{sid}/history", {"after": 2**64}),
        (f"/api/session/{sid}/messages", {"before": 2**63}),
        ("/api/session", {"offset": 2**63}),
    ]
    for path, params in cases:
        status, body = await api.call("GET", path, params=params)
        assert status == 400, body
        assert body["error"]["type"] == "invalid-request"
    status, _ = await api.call("GET", f"/api/session/{sid}/history", params={"after": 2**63 - 1})
    assert status == 200
    resp = await api.open_log(sid, headers={"Last-Event-ID": str(2**63)})
    assert resp.status == 400
    assert (await resp.json())["error"]["type"] == "invalid-request"


async def test_a_location_under_an_unknown_users_home_is_a_400(api: Api) -> None:
    status, body = await api.call("POST", "/api/session", {"location": "~no-such-user-agent-tui/x"})
    assert status == 400, body
    assert "~no-such-user-agent-tui/x" in body["error"]["message"]


async def test_a_location_filter_that_is_no_path_is_a_400(api: Api) -> None:
    for location in ("/tmp/a\x00b", "~no-such-user-agent-tui"):
        status, body = await api.call("GET", "/api/session", params={"location": location})
        assert status == 400, body
        assert body["error"]["type"] == "invalid-request"


async def test_a_lone_surrogate_in_a_body_is_a_400(api: Api, tmp_path: Path) -> None:
    raw = b'{"location": "%s", "title": "\\ud800"}' % str(tmp_path).encode()
    status, body = await api.call("POST", "/api/session", raw=raw)
    assert status == 400, body
    assert body["error"]["type"] == "invalid-request"


async def test_a_nul_in_the_search_filter_is_a_400_not_a_store_error(api: Api) -> None:
    status, body = await api.call("GET", "/api/session", params={"search": "a\x00b"})
    assert status == 400, body
    assert body["error"]["type"] == "invalid-request"


async def test_a_405_says_which_methods_are_allowed(api: Api) -> None:
    async with api.client.put("/api/session", headers=api.headers) as resp:
        assert resp.status == 405
        assert set(resp.headers["Allow"].split(",")) == {"GET", "POST"}
        assert (await resp.json())["error"]["type"] == "method-not-allowed"
