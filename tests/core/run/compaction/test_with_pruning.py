"""Pruning and automatic compaction together: the estimate counts the pruned request, so pruning
that makes room spares a compaction, and compaction still runs when the pruned request is too big."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, settle, small_window, stored
from .helpers import SUMMARY, echo

BIG = "B" * 2_000  # ~500 tokens; its stub is ~70


@pytest.fixture
def settings_overrides(request: pytest.FixtureRequest) -> dict[str, Any]:
    # budget = 1 600 - max(40, 50) = 1 550 tokens; pruning protects only the newest output
    return {
        **small_window(1_600),
        "context": {"prune": request.param, "prune_protect_tokens": 0, "prune_minimum_tokens": 200},
    }


@pytest.mark.parametrize(
    ("settings_overrides", "reported", "compacts"),
    [(True, 800, False), (False, 800, True), (True, 1_540, True)],
    indirect=["settings_overrides"],
    ids=["pruning-makes-room", "no-pruning-compacts", "pruned-but-still-too-big"],
)
async def test_compaction_sees_the_pruned_request(
    runtime: Runtime, fake: FakeProvider, workdir: Any, reported: int, compacts: bool
) -> None:
    # The second step reports its request; with its own call and output (the echo's input is
    # BIG too) the next one is ~reported + 1 050 tokens, less ~400 when the first output is pruned.
    fake.add(echo("call_1", BIG), echo("call_2", BIG, usage={"input": reported, "output": 5}))
    fake.add(*([{"text": SUMMARY}] if compacts else []), {"text": "done"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)

    assert kinds(await stored(runtime, sid)).count("compaction.ended") == int(compacts)
    assert fake.remaining == 0
    if not compacts:
        tools = {m["tool_call_id"]: m["content"] for m in fake.accepted[2].body["messages"] if m.get("role") == "tool"}
        assert (
            tools["call_1"].startswith("[pruned from context: the output of this echo call") and tools["call_2"] == BIG
        )
