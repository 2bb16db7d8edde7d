"""Subagents' sessions over HTTP: a session's children, and a list without them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.api import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from tests.routed_fake import Routes, task_call

from .conftest import Api


@pytest.fixture
def fake(routed_fake: FakeProvider) -> FakeProvider:
    return routed_fake


@pytest.fixture
async def runtime(open_runtime: Any) -> AsyncIterator[Runtime]:
    async with await open_runtime(policy="allow", tools="all") as opened:
        yield opened


async def test_a_sessions_children_are_listed_under_it_and_left_out_of_the_top_level(
    api: Api, routes: Routes, workdir: Path
) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD: answer")]}, {"text": "done"})
    routes.add("CHILD", {"text": "child answer"})
    parent = await api.create(workdir)
    status, _ = await api.call("POST", f"/api/session/{parent}/prompt", {"prompt": "PARENT: delegate"})
    assert status in (200, 201, 202)
    await api.wait_idle(parent)

    status, children = await api.call("GET", f"/api/session/{parent}/children")
    assert status == 200 and children["has_more"] is False
    (child,) = children["data"]
    assert child["spawned_by"] == parent and child["spawned_call_id"] == "call_t" and child["agent"] == "general"

    status, everything = await api.call("GET", "/api/session", params={"location": str(workdir)})
    assert {s["id"] for s in everything["data"]} == {parent, child["id"]}
    status, top = await api.call("GET", "/api/session", params={"location": str(workdir), "top_level": "true"})
    assert status == 200 and [s["id"] for s in top["data"]] == [parent]

    status, none = await api.call("GET", f"/api/session/{child['id']}/children")
    assert status == 200 and none == {"data": [], "has_more": False}
    status, error = await api.call("GET", "/api/session/ses_nobody/children")
    assert status == 404, error
