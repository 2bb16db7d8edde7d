"""GET /api/session/{id}/usage: what a session spent over HTTP, as ``/usage`` shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider

from .conftest import Api


async def test_usage_sums_the_steps_and_keeps_an_unknown_cost_null(api: Api, fake: FakeProvider, workdir: Path) -> None:
    sid = await api.create(workdir)
    status, empty = await api.call("GET", f"/api/session/{sid}/usage")
    assert status == 200 and empty["total"]["steps"] == 0 and empty["sessions"] == 1, empty

    fake.add({"text": "one", "usage": {"input": 300, "output": 30, "cost": 0.02}}, {"text": "two"})
    for text in ("first", "second"):
        status, receipt = await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": text})
        assert status == 202, receipt
        await api.wait_idle(sid)
    status, spent = await api.call("GET", f"/api/session/{sid}/usage")
    assert status == 200, spent
    assert spent["total"]["steps"] == 2 and spent["total"]["input_tokens"] == 310
    assert spent["total"]["cost"] == pytest.approx(0.02) and spent["total"]["unpriced_steps"] == 1
    assert [row["key"] for row in spent["by_model"]] == ["openai/fake-model"]

    status, missing = await api.call("GET", "/api/session/ses_missing/usage")
    assert status == 404 and missing["error"]["type"] == "not-found", missing
