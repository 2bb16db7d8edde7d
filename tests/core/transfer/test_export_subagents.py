"""A JSONL export holds the subagents' sessions; import restores them as children of the new parent (issue 25).

A real run (the fake provider over HTTP, a real SQLite file): a parent whose ``task`` calls start two
children, the first of which starts a grandchild.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.runtime import Runtime
from agent_tui.core.transfer.export_jsonl import SUBAGENT
from agent_tui.core.transfer.import_jsonl import NotAnExport
from agent_tui.testing.fake_provider import FakeProvider
from tests.routed_fake import Routes, task_call

from ..run.runner.conftest import settle
from .test_export import _stable

ALLOW_TASK = {"permission": [{"action": "task", "pattern": "*", "effect": "allow"}]}
"""Subagents may start subagents (a grandchild), as a user's config can allow."""


@pytest.fixture
def fake(routed_fake: FakeProvider) -> FakeProvider:
    return routed_fake


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(cli=ALLOW_TASK, policy="allow") as opened:
        yield opened


async def _family(runtime: Runtime, routes: Routes, workdir: Path) -> str:
    routes.add(
        "PARENT",
        {"tool_calls": [task_call("call_a", "CHILD-A: one"), task_call("call_b", "CHILD-B: two")]},
        {"text": "both answered"},
    )
    routes.add("CHILD-A", {"tool_calls": [task_call("call_g", "GRAND: deeper")]}, {"text": "answer A"})
    routes.add("CHILD-B", {"tool_calls": [{"id": "c1", "name": "echo", "arguments": {"text": "x"}}]}, {"text": "B"})
    routes.add("GRAND", {"text": "answer G"})
    parent = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(parent, "PARENT: two children")
    await settle(runtime, parent, timeout=60)
    return parent


async def _tree(runtime: Runtime, session_id: str) -> list[str]:
    """The session and its subagents' sessions, depth first."""
    out = [session_id]
    for child in await runtime.sessions.children(session_id):
        out += await _tree(runtime, child.id)
    return out


def _swap(text: str, ids: dict[str, str]) -> str:
    for new, old in ids.items():
        text = text.replace(new, old)
    return text


def _undated(markdown: str) -> str:
    return re.sub(r"started [0-9T:.Z-]+\*", "started *", markdown)


def _same(records: list[dict[str, Any]]) -> Any:
    """``_stable`` without the assistant message ids a subagent's ``spawned_by`` names (new in a copy)."""
    for record in records:
        (record.get("meta") or {}).get("spawned_by", {}).pop("assistant_message_id", None)
    return _stable(records)


async def test_a_parent_with_subagents_exports_and_imports_as_a_family(
    runtime: Runtime, routes: Routes, workdir: Path
) -> None:
    parent = await _family(runtime, routes, workdir)
    tree = await _tree(runtime, parent)
    assert len(tree) == 4, "a parent, two children, a grandchild"
    exported = await runtime.sessions.transfer.export(parent)
    records = [json.loads(line) for line in exported.splitlines()]
    assert [r["type"] for r in records].count("header") == 1, "reference 002: one header, first"
    opened = [r for r in records if r["type"] == SUBAGENT]
    assert [r["session_id"] for r in opened] == tree[1:]
    assert all("ts" in r for r in records[1:])
    starts = [r["session_id"] for r in records if r["type"] == "run.start"]
    assert starts == tree, "each session's runs follow its opening record, depth first"
    steps = [r["seq"] for r in records if r["type"] == "llm.request"]
    assert steps == list(range(1, len(steps) + 1)), "seq counts across the file"

    copy = await runtime.sessions.transfer.import_session(exported, location=workdir)
    copies = await _tree(runtime, copy.id)
    assert len(copies) == 4 and not set(copies) & set(tree)
    old_of = dict(zip(copies, tree, strict=True))

    # the same transcripts: the copy's export is the original's, once its ids are the old ones again
    again = await runtime.sessions.transfer.export(copy.id)
    assert _same([json.loads(line) for line in _swap(again, old_of).splitlines()]) == _same(records)
    markdown = [await runtime.sessions.transfer.export(s, "markdown") for s in (copy.id, parent)]
    assert _undated(_swap(markdown[0], old_of)) == _undated(markdown[1])

    # linked under the new parent (as the picker lists them), by the new message ids
    for new, old in old_of.items():
        record, original = await runtime.sessions.get(new), await runtime.sessions.get(old)
        if original.spawned_by is None:
            assert record.spawned_by is None
            continue
        assert record.spawned_by == next(n for n, o in old_of.items() if o == original.spawned_by)
        assert record.spawned_call_id == original.spawned_call_id
        steps_of_parent = {m.id for m in await runtime.sessions.messages(record.spawned_by)}
        assert record.spawned_message_id in steps_of_parent
        assert record.spawned_message_id != original.spawned_message_id
        old_ids = {m.id for m in await runtime.sessions.messages(old)}
        assert not old_ids & {m.id for m in await runtime.sessions.messages(new)}
    # in the original's order: oldest first, and the two task calls ran at once, so either may be older
    children = [s.spawned_call_id for s in await runtime.sessions.children(copy.id)]
    assert children == [s.spawned_call_id for s in await runtime.sessions.children(parent)]
    assert sorted(children) == ["call_a", "call_b"]
    top = {s.id for s in await runtime.sessions.list(top_level=True)}
    assert top == {parent, copy.id}

    # the parent's task results name the new children
    calls = {c.call_id: c for c in await runtime._store.tool_calls(copy.id)}
    for child in await runtime.sessions.children(copy.id):
        call = calls[child.spawned_call_id or ""]
        assert call.output is not None and call.result_meta is not None
        assert call.output["text"].endswith(f"session_id: {child.id}")
        assert call.output["data"]["session_id"] == call.result_meta["session_id"] == child.id
        assert old_of[child.id] not in json.dumps([call.output, call.result_meta])


OLDER_EXPORT = "\n".join(
    json.dumps(r)
    for r in [
        {"type": "header", "schema_version": 1, "run_id": "ses_old", "session_id": "ses_old", "meta": {"title": "t"}},
        {"type": "run.start", "run_id": "msg_u", "ts": "x", "input": {"type": "text", "text": "hi"}},
        {"type": "llm.request", "run_id": "msg_u", "ts": "x", "seq": 1, "model": {"name": "m"}, "input": {}},
        {
            "type": "llm.response",
            "run_id": "msg_u",
            "ts": "x",
            "seq": 1,
            "output": {
                "messages": [
                    {
                        "role": "assistant",
                        "content": "looking",
                        "tool_calls": [{"id": "call_1", "function": {"name": "bash", "arguments": "{}"}}],
                    }
                ]
            },
            "meta": {
                "parts": [{"type": "text", "ordinal": 0, "text": "looking"}, {"type": "tool", "call_id": "call_1"}]
            },
        },
        {
            "type": "tool.output",
            "run_id": "msg_u",
            "ts": "x",
            "tool": "bash",
            "tool_call_id": "call_1",
            "result_raw": "ok",
            "meta": {"output": {"text": "ok"}},
        },
        {"type": "run.end", "run_id": "msg_u", "ts": "x", "outcome": "completed"},
    ]
)
"""An export as builds before subagents were exported wrote it: no ``message_id``, no ``result_meta``."""


async def test_an_older_single_session_export_imports_as_before(runtime: Runtime, workdir: Path) -> None:
    copy = await runtime.sessions.transfer.import_session(OLDER_EXPORT, location=workdir)
    assert copy.title == "t" and copy.spawned_by is None
    assert await runtime.sessions.children(copy.id) == []
    messages = await runtime.sessions.messages(copy.id)
    assert [m.kind for m in messages] == ["user", "assistant"]
    (call,) = await runtime._store.tool_calls(copy.id)
    assert (call.call_id, call.output, call.result_meta) == ("call_1", {"text": "ok", "data": {}, "images": []}, {})


async def test_a_subagent_without_its_parent_in_the_file_is_refused_and_nothing_written(
    runtime: Runtime, workdir: Path
) -> None:
    before = await runtime.sessions.list(limit=100)
    stray = {"type": SUBAGENT, "ts": "x", "session_id": "ses_kid", "meta": {"spawned_by": {"session_id": "ses_gone"}}}
    with pytest.raises(NotAnExport, match=r"record 7 \(x.agent-tui.subagent\) names no parent session earlier"):
        await runtime.sessions.transfer.import_session(
            OLDER_EXPORT + "\n" + json.dumps(stray), location=workdir, source="f"
        )
    wrong_call = {**stray, "meta": {"spawned_by": {"session_id": "ses_old", "assistant_message_id": "msg_x"}}}
    with pytest.raises(NotAnExport, match="names a task call its parent session does not have"):
        await runtime.sessions.transfer.import_session(OLDER_EXPORT + "\n" + json.dumps(wrong_call), location=workdir)
    assert await runtime.sessions.list(limit=100) == before


async def test_a_failed_childs_error_names_the_new_child(runtime: Runtime, routes: Routes, workdir: Path) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: fail")]}, {"text": "the child failed"})
    routes.add("CHILD-A", {"error": {"status": 400, "kind": "invalid_request", "message": "bad child request"}})
    parent = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(parent, "PARENT: a failing child")
    await settle(runtime, parent, timeout=60)
    (old,) = await runtime.sessions.children(parent)

    copy = await runtime.sessions.transfer.import_session(
        await runtime.sessions.transfer.export(parent), location=workdir
    )
    (child,) = await runtime.sessions.children(copy.id)
    (call,) = await runtime._store.tool_calls(copy.id)
    assert call.state == "failed" and call.error is not None and call.result_meta is not None
    assert call.error["message"].endswith(f"session_id: {child.id}") and "bad child request" in call.error["message"]
    assert call.result_meta["session_id"] == child.id
    assert old.id not in json.dumps([call.error, call.result_meta])
