"""Subagents through ``agent-tui run``: the child's session id in ``--format json``, and a kill -9
during a child's tool, then resume: the parent's call is swept, the child's work is never re-run."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.commands.installed import checked_lines
from tests.commands.test_run_cmd import Cli, session_of, types
from tests.routed_fake import Routes, task_call
from tests.warmth import LaunchMode


@pytest.fixture
def fake(routed_fake: FakeProvider) -> FakeProvider:
    return routed_fake


@pytest.fixture
async def cli(fake: FakeProvider, workdir: Path, agent_home: Path, runtime_dir: Path) -> AsyncIterator[Cli]:
    cli = Cli(fake, workdir, agent_home, LaunchMode("in-process", runtime_dir))
    yield cli
    await cli.close()


async def test_json_events_carry_the_childs_session_id(cli: Cli, routes: Routes) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: answer")]}, {"text": "done"})
    routes.add("CHILD-A", {"text": "child answer"})
    code, out, err = await cli.run("--format", "json", "PARENT: go")
    assert code == 0, err
    durable = [line for line in checked_lines(out) if not line.get("live")]  # each valid against the schema
    (settled,) = [d for d in durable if d["type"] == "session.tool.success.1"]
    child = settled["data"]["output"]["data"]["session_id"]
    assert {d["session_id"] for d in durable} == {session_of(err)}  # the run's own session, not the child's
    assert settled["data"]["result_meta"]["session_id"] == child
    child_log = await cli.log(child)
    assert child_log[0]["data"]["spawned_by"]["call_id"] == "call_t"
    assert types(child_log)[-1] == "execution.succeeded"


async def test_kill_during_a_childs_tool_then_resume_never_reruns_the_child(cli: Cli, routes: Routes) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: block")]}, {"text": "recovered"})
    routes.add(
        "CHILD-A", {"tool_calls": [{"id": "b1", "name": "block", "arguments": {"label": "child"}}]}, {"text": "late"}
    )
    proc = await cli.start("run", *cli.model_flags(), "PARENT: start a child")
    await cli.wait_mark("block child")
    await cli.mode.kill_agent(proc)  # SIGKILL: no cleanup runs
    _, err = await proc.communicate()
    parent = session_of(err.decode())
    parent_log = await cli.log(parent)
    assert types(parent_log)[-1] == "tool.called"
    (child_id,) = await _children(cli, parent)
    child_before = await cli.log(child_id)
    assert types(child_before)[-1] == "tool.called"

    code, out, err = await cli.run("--session", parent)
    assert code == 0, err
    assert out.strip() == "recovered"
    log = await cli.log(parent)
    stale = next(e for e in log if e["type"] == "session.tool.failed.1")
    assert stale["data"]["call_id"] == "call_t" and stale["data"]["error"]["type"] == "tool.stale"
    assert await cli.log(child_id) == child_before, "resuming the parent leaves the child as it was"
    assert cli.marks.read_text().count("block child") == 1

    code, out, err = await cli.run("--session", child_id)  # the child's own sweep, when it is run
    assert code == 0, err
    child_log = await cli.log(child_id)
    assert next(e for e in child_log if e["type"] == "session.tool.failed.1")["data"]["error"]["type"] == "tool.stale"
    assert cli.marks.read_text().count("block child") == 1  # never executed again
    assert out.strip() == "late"


async def _children(cli: Cli, parent: str) -> list[str]:
    """The parent's children, from ``sessions list --json`` (one JSON row a line)."""
    proc = await cli.start("sessions", "list", "--json")
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    rows = [json.loads(line) for line in out.decode().splitlines()]
    return [row["id"] for row in rows if row.get("spawned_by") == parent]


async def test_export_and_import_through_the_cli_bring_the_children(cli: Cli, routes: Routes) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD-A: answer")]}, {"text": "done"})
    routes.add("CHILD-A", {"text": "child answer"})
    code, out, err = await cli.run("--format", "json", "PARENT: go")
    assert code == 0, err
    parent = session_of(err)
    (child,) = await _children(cli, parent)
    target = cli.workdir / "family.jsonl"
    proc = await cli.start("export", parent, "-o", str(target))
    _, err_bytes = await proc.communicate()
    assert proc.returncode == 0, err_bytes.decode()
    assert f'"session_id": "{child}"' in target.read_text()

    proc = await cli.start("import", str(target))
    out_bytes, err_bytes = await proc.communicate()
    assert proc.returncode == 0, err_bytes.decode()
    copy = out_bytes.decode().strip()
    (copied_child,) = await _children(cli, copy)
    assert copied_child not in (parent, child)
    copied_log = await cli.log(copied_child)
    assert copied_log[0]["data"]["spawned_by"]["call_id"] == "call_t"
    settled = next(e for e in await cli.log(copy) if e["type"] == "session.tool.success.1")
    assert settled["data"]["output"]["text"] == f"child answer\n\nsession_id: {copied_child}"
