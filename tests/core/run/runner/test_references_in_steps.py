"""Reference folders (``[references.NAME]``) in real runs: the guidance source's baseline,
update and removal in the requests the fake provider records, and the model reading
``NAME:path`` with the real ``read`` tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.host.tool_host import build_registry
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from .conftest import reminders, settle, system_text


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs-checkout"
    folder.mkdir()
    (folder / "guide.md").write_text("The API uses snake_case.\n")
    return folder


async def test_reference_guidance_is_baselined_then_updated_then_removed(
    open_runtime: Any, fake: FakeProvider, workdir: Path, docs: Path, tmp_path: Path
) -> None:
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    one = {"docs": {"path": str(docs), "description": "the API docs"}}
    two = {**one, "spec": {"path": str(tmp_path / "no-such-spec")}}
    sid = None
    for references in (one, two, {}):
        async with await open_runtime(cli={"references": references}, policy="allow", clock=ManualClock()) as runtime:
            sid = sid or (await runtime.sessions.create(location=workdir)).id
            await runtime.sessions.prompt(sid, "go")
            await settle(runtime, sid)
    first, second, third = (request.body for request in fake.accepted)
    assert f"- docs: {docs} — the API docs" in system_text(first) and "NAME:path" in system_text(first)
    assert system_text(second) == system_text(first)  # the baseline never changes
    (update,) = reminders(second)
    assert "reference folders changed" in update and "- spec:" in update and "(not found" in update
    assert "All reference folder instructions were removed" in reminders(third)[-1]


async def test_the_model_reads_a_reference_path_with_the_real_read_tool(
    open_runtime: Any, fake: FakeProvider, workdir: Path, docs: Path
) -> None:
    read = {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "docs:guide.md"}}]}
    fake.add(read, {"text": "snake_case it is"})
    cli = {"references": {"docs": {"path": str(docs)}}}
    async with await open_runtime(cli=cli, policy="allow", clock=ManualClock(), tools=build_registry) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "what case does the API use?")
        await settle(runtime, sid)
    tool_results = [m for m in fake.accepted[1].body["messages"] if m["role"] == "tool"]
    assert "1\tThe API uses snake_case." in str(tool_results[0]["content"])
