"""Hostile input gets a clear 4xx, never a 500: deep or huge bodies, foreign content types and
Host headers (DNS rebinding), path ids that are not ids (refused before the facade is reached)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.api import Runtime
from agent_tui.server.app import MAX_BODY_BYTES, build_app
from agent_tui.server.parse import MAX_DEPTH
from tests.fakes.facade_spy import FacadeSpy

from .conftest import TOKEN, Api


@pytest.fixture
async def spied(runtime: Runtime) -> AsyncIterator[tuple[Api, FacadeSpy]]:
    spy = FacadeSpy(runtime.sessions)
    async with TestClient(TestServer(build_app(spy, TOKEN, settings_for=runtime.settings_for))) as client:  # type: ignore[arg-type]
        assert spy.reached == ["asks"]  # the app's own start: served questions wait for HTTP
        spy.reached.clear()
        yield Api(client), spy


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def assert_refused(status: int, body: Any, expected: int, kind: str) -> None:
    assert status == expected, body
    assert body["error"]["type"] == kind, body


# -- bodies ----------------------------------------------------------------------


async def test_json_nested_100_000_deep_is_a_400(api: Api, tmp_path: Path) -> None:
    sid = await api.create(tmp_path)
    for method, path, raw in [
        ("POST", f"/api/session/{sid}/prompt", b'{"prompt": %s}' % nested(100_000)),
        ("PUT", f"/api/session/{sid}/context/api/notes", nested(100_000)),
        ("POST", "/api/session", nested(100_000)),
    ]:
        status, body = await api.call(method, path, raw=raw)
        assert_refused(status, body, 400, "invalid-request")
        assert f"deeper than {MAX_DEPTH}" in body["error"]["message"]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(depth=st.integers(min_value=1, max_value=3 * MAX_DEPTH))
async def test_context_values_nest_up_to_the_limit_and_no_deeper(api: Api, tmp_path: Path, depth: int) -> None:
    sid = await api.create(tmp_path)
    value = json.loads(b"[" * (depth - 1) + b"{}" + b"]" * (depth - 1))
    status, body = await api.call("PUT", f"/api/session/{sid}/context/api/deep", value)
    if depth <= MAX_DEPTH:
        assert status == 200, body
        assert body["value"] == value
    else:
        assert_refused(status, body, 400, "invalid-request")


async def test_a_50_mb_body_is_a_413(api: Api, tmp_path: Path) -> None:
    sid = await api.create(tmp_path)
    huge = b'{"prompt": "' + b"x" * (50 * 1024 * 1024) + b'"}'
    status, body = await api.call("POST", f"/api/session/{sid}/prompt", raw=huge)
    assert_refused(status, body, 413, "too-large")
    status, _ = await api.call(
        "POST", f"/api/session/{sid}/prompt", raw=b'{"prompt": "' + b"x" * (MAX_BODY_BYTES // 2) + b'"}'
    )
    assert status == 202


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        "image/png",
    ],
)
async def test_a_body_that_is_not_json_by_its_content_type_is_a_415(
    api: Api, tmp_path: Path, content_type: str
) -> None:
    status, body = await api.call(
        "POST", "/api/session", {"location": str(tmp_path)}, headers={"Content-Type": content_type}
    )
    assert_refused(status, body, 415, "unsupported-media-type")
    assert content_type.split(";")[0] in body["error"]["message"]


async def test_json_content_types_and_none_at_all_are_read(api: Api, tmp_path: Path) -> None:
    for headers in (
        {"Content-Type": "application/json; charset=utf-8"},
        {"Content-Type": "application/merge-patch+json"},
    ):
        status, body = await api.call("POST", "/api/session", {"location": str(tmp_path)}, headers=headers)
        assert status == 201, (headers, body)
    raw = json.dumps({"location": str(tmp_path)}).encode()
    async with api.client.post(
        "/api/session", data=raw, skip_auto_headers=["Content-Type"], headers=api.headers
    ) as resp:
        assert resp.status == 201, await resp.text()


# -- Host ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:{port}",
        "127.0.0.1.evil.example:{port}",
        "localhost.evil.example:{port}",
        "127.0.0.1:{other}",
        "localhost",
        "[::1]:{other}",
        "10.0.0.1:{port}",
        "127.0.0.2:{port}",
    ],
)
async def test_a_host_that_is_not_this_loopback_server_is_a_421(api: Api, host: str) -> None:
    port = api.client.port
    named = host.format(port=port, other=port + 1 if port < 65535 else port - 1)
    for path in ("/api/session", "/api/openapi.json"):
        status, body = await api.call("GET", path, headers={"Host": named})
        assert_refused(status, body, 421, "misdirected")
        assert named in body["error"]["message"]


async def test_loopback_names_with_the_port_are_served(api: Api) -> None:
    port = api.client.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        status, body = await api.call("GET", "/api/session", headers={"Host": host})
        assert status == 200, (host, body)


# -- path ids --------------------------------------------------------------------

NOT_IDS = [
    "../x",
    "..\\x",
    "x" * 129,
    "x" * 5_000,
    "séance",
    "会话",
    "ses_\u202eevil",
    "a b",
    "ses;drop",
    "%00",
    "x\x00y",
]


@pytest.mark.parametrize("bad", NOT_IDS, ids=lambda s: repr(s[:12]))
async def test_a_path_id_that_is_no_id_is_a_400_before_the_facade(spied: tuple[Api, FacadeSpy], bad: str) -> None:
    api, spy = spied
    quoted = quote(bad, safe="")
    for method, path in [
        ("GET", f"/api/session/{quoted}"),
        ("GET", f"/api/session/{quoted}/history"),
        ("DELETE", f"/api/session/{quoted}"),
        ("DELETE", f"/api/session/ses_1/pending/{quoted}"),
        ("POST", f"/api/permission/{quoted}/reply"),
    ]:
        status, body = await api.call(method, path, {"reply": "once"} if "reply" in path else None)
        assert_refused(status, body, 400, "invalid-request")
        assert "is not an id" in body["error"]["message"]
        assert len(body["error"]["message"]) < 300
    assert spy.reached == []


async def test_a_10_000_character_id_is_a_400_before_the_app(spied: tuple[Api, FacadeSpy]) -> None:
    """aiohttp refuses a request line over 8 KiB itself (a plain-text 400): the app never sees it."""
    api, spy = spied
    async with api.client.get(f"/api/session/{'x' * 10_000}", headers=api.headers) as resp:
        assert resp.status == 400
    assert spy.reached == []


async def test_a_well_formed_unknown_id_reaches_the_facade_and_is_a_404(spied: tuple[Api, FacadeSpy]) -> None:
    api, spy = spied
    status, body = await api.call("GET", "/api/session/ses_01J0000000000000000000000")
    assert_refused(status, body, 404, "not-found")
    assert spy.reached == ["get"]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    bad=st.text(min_size=1, max_size=300).filter(
        lambda s: (
            not s.isascii() or not s.replace("_", "a").replace(".", "a").replace("-", "a").isalnum() or len(s) > 128
        )
    )
)
async def test_any_text_that_is_no_id_is_refused_unreached(spied: tuple[Api, FacadeSpy], bad: str) -> None:
    api, spy = spied
    status, body = await api.call("GET", f"/api/session/{quote(bad, safe='')}/pending")
    assert status in (400, 404), body  # 404: a path the router cannot match at all (e.g. only dots)
    assert spy.reached == []
