"""The SSE log: replay with ids, one ``log.synced`` marker, a gapless live tail, resume, close."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

from agent_tui.core.api import Runtime
from agent_tui.server.app import build_app
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import TOKEN, Api, SseReader, short


async def _models(api: Api, sid: str, count: int) -> None:
    for n in range(count):
        await api.call("POST", f"/api/session/{sid}/model", {"model": f"openai/m{n}"})


async def test_replay_without_follow_ends_after_the_marker(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    await _models(api, sid, 4)
    resp = await api.open_log(sid, after=2)
    assert resp.status == 200 and resp.headers["Content-Type"].startswith("text/event-stream")
    events = await SseReader(resp).rest()
    assert [(e.id, e.event) for e in events] == [
        ("3", "session.model.selected.1"),
        ("4", "session.model.selected.1"),
        ("5", "session.model.selected.1"),
        (None, "log.synced"),
    ]
    assert events[0].json() == {**events[0].json(), "seq": 3, "type": "session.model.selected.1"}
    assert events[0].json()["data"] == {"model": "openai/m1"}
    assert events[-1].json() == {"seq": 5}


async def test_marker_has_no_seq_for_an_empty_replay(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    events = await SseReader(await api.open_log(sid, after=1)).rest()
    assert [(e.event, e.json()) for e in events] == [("log.synced", {"seq": 1})]


async def test_live_tail_sees_the_run_without_gaps(api: Api, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "streamed answer", "chunks": 5, "delay_ms": 5})
    sid = await api.create(workdir)
    await _models(api, sid, 2)
    resp = await api.open_log(sid, follow=1, deltas=1)
    reader = SseReader(resp)
    replay = await reader.until(lambda e: e.event == "log.synced")
    assert [int(e.id) for e in replay[:-1]] == [1, 2, 3] and replay[-1].json() == {"seq": 3}
    await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "stream please"})
    live = await reader.until(lambda e: e.event == "session.execution.succeeded.1")
    durable = [e for e in live if e.event != "delta"]
    deltas = [e for e in live if e.event == "delta"]
    assert [int(e.id) for e in durable] == list(range(4, 4 + len(durable)))  # no gap, no duplicate
    assert all(e.event == e.json()["type"] for e in durable)
    assert [short(e.event) for e in durable][:2] == ["prompt.admitted", "execution.started"]
    assert deltas and all(e.id is None for e in deltas)
    assert "".join(d.json()["delta"] for d in deltas if d.json()["kind"] == "text.delta") == "streamed answer"
    history = await api.history(sid)
    assert [e["seq"] for e in history] == [1, 2, 3, *(int(e.id) for e in durable)]
    resp.close()


async def test_no_deltas_unless_asked(api: Api, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "quiet answer", "chunks": 4})
    sid = await api.create(workdir)
    resp = await api.open_log(sid, follow="true")
    reader = SseReader(resp)
    await reader.until(lambda e: e.event == "log.synced")
    await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "hi"})
    live = await reader.until(lambda e: e.event == "session.execution.succeeded.1")
    assert all(e.event != "delta" and e.id is not None for e in live)
    resp.close()


async def test_reconnect_with_last_event_id_resumes_after_it(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    await _models(api, sid, 5)
    first = await api.open_log(sid, follow=1)
    seen = await SseReader(first).until(lambda e: e.id == "3")
    first.close()
    assert [e.id for e in seen] == ["1", "2", "3"]
    await _models(api, sid, 2)  # committed while the client was away
    again = await api.open_log(sid, headers={"Last-Event-ID": seen[-1].id}, after=0, follow=1)
    reader = SseReader(again)
    events = await reader.until(lambda e: e.event == "log.synced")
    assert [e.id for e in events[:-1]] == ["4", "5", "6", "7", "8"]
    assert events[-1].json() == {"seq": 8}
    await _models(api, sid, 1)
    assert (await reader.next()).id == "9"
    again.close()
    bad = await api.open_log(sid, headers={"Last-Event-ID": "three"})
    assert bad.status == 400 and "Last-Event-ID must be an event seq" in (await bad.json())["error"]["message"]


async def test_a_log_opened_mid_run_has_every_event_once(api: Api, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "slow " * 20, "chunks": 20, "delay_ms": 15})
    sid = await api.create(workdir)
    await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "go slowly"})
    await api.wait_event(sid, "text.started")
    resp = await api.open_log(sid, follow=1)
    events = await SseReader(resp).until(lambda e: e.event == "session.execution.succeeded.1")
    resp.close()
    markers = [e for e in events if e.event == "log.synced"]
    durable = [int(e.id) for e in events if e.id is not None]
    assert len(markers) == 1 and durable == list(range(1, len(durable) + 1))
    assert 3 <= markers[0].json()["seq"] < durable[-1]  # replay ended mid-run; the rest came live


async def test_closing_the_client_closes_the_tail(runtime: Runtime, workdir: Path) -> None:
    """No keepalive within the test's time: the server notices the closed connection itself."""
    app = build_app(runtime.sessions, TOKEN, keepalive_s=3600)
    async with TestClient(TestServer(app)) as client:
        await _closing_closes(Api(client), runtime, workdir)


async def _closing_closes(api: Api, runtime: Runtime, workdir: Path) -> None:
    sid = await api.create(workdir)
    bus = runtime.sessions._bus
    resp = await api.open_log(sid, follow=1, deltas=1)
    await SseReader(resp).until(lambda e: e.event == "log.synced")
    assert sid in bus.watched_sessions()
    resp.close()

    async def released() -> None:
        while (watched := bus.watched_sessions()) is None or sid in watched:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(released(), 10)


async def test_an_idle_tail_sends_keepalive_comments(api: Api, workdir: Path) -> None:
    sid = await api.create(workdir)
    resp = await api.open_log(sid, follow=1)
    await SseReader(resp).until(lambda e: e.event == "log.synced")
    line = await asyncio.wait_for(resp.content.readline(), 5)
    assert line == b": keepalive\n"
    resp.close()
