"""GET /api/session/{id}/context-size: the next request's breakdown over HTTP, as ``context --json``."""

from __future__ import annotations

from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider

from .conftest import Api


async def test_the_breakdown_grows_with_a_turn_and_an_unknown_id_is_404(
    api: Api, fake: FakeProvider, workdir: Path
) -> None:
    sid = await api.create(workdir)
    status, before = await api.call("GET", f"/api/session/{sid}/context-size")
    assert status == 200, before
    assert before["session_id"] == sid and [p["name"] for p in before["parts"]] == [
        "system",
        "instructions",
        "tools",
        "history",
    ]
    assert before["parts"][3]["tokens"] == 0
    assert sum(part["tokens"] for part in before["parts"]) == before["total"]

    fake.add({"text": "answer " * 300})
    status, receipt = await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "explain"})
    assert status == 202, receipt
    await api.wait_idle(sid)
    status, after = await api.call("GET", f"/api/session/{sid}/context-size")
    assert status == 200
    assert 500 < after["parts"][3]["tokens"] < 700  # 2,100 characters of answer and the prompt
    assert after["total"] == sum(part["tokens"] for part in after["parts"])

    status, missing = await api.call("GET", "/api/session/ses_missing/context-size")
    assert status == 404 and missing["error"]["type"] == "not-found", missing
