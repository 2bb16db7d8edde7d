"""Approval modes over a scripted model: what each mode runs without asking, what still asks, and
that deny rules and the plan agent's own rules win in every mode.

The headless policy answers ``deny`` (``run``'s default), so an ask shows as a ``permission.asked``
event and a failed call; what the mode lets through runs without one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.tools.sandbox import bwrap_path, unavailable_reason
from agent_tui.vocab.clock import ManualClock
from agent_tui.vocab.kinds import ApprovalMode

from .conftest import of_type, settle, stored

PATCH = "*** Begin Patch\n*** Add File: made.txt\n+made\n*** End Patch"
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason=f"no sandbox here: {unavailable_reason()}")


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


SCRIPT = (
    _call("edit", "apply_patch", {"patch": PATCH}),
    _call("sandboxed", "bash", {"command": "echo inside > bashed.txt"}),
    _call("outside", "bash", {"command": "echo outside", "outside_sandbox": True, "justification": "test"}),
    {"text": "done"},
)


async def _run_script(
    open_runtime: Any,
    fake: FakeProvider,
    workdir: Path,
    clock: ManualClock,
    cli: dict[str, Any],
    agent: str = "build",
    policy: str | None = "deny",
    choose: ApprovalMode | None = None,
) -> tuple[dict[str, str], set[str]]:
    """Runs the script; returns the calls that failed (call id -> error type) and the actions asked."""
    fake.add(*SCRIPT)
    async with await open_runtime(cli=cli, policy=policy, tools="all", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir, agent=agent)).id
        if choose is not None:
            runtime.sessions.choose_approval(sid, choose)
        await runtime.sessions.prompt(sid, "go")
        await settle(runtime, sid, timeout=30)
        log = await stored(runtime, sid)
    failed = {f.call_id: str(f.error.type) for f in of_type(log, ev.ToolFailed)}
    return failed, {a.action for a in of_type(log, ev.PermissionAsked)}


async def test_ask_asks_for_the_edit_and_both_commands(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    failed, asked = await _run_script(open_runtime, fake, workdir, clock, {"approval": "ask"})
    assert failed == {c: "permission.rejected" for c in ("edit", "sandboxed", "outside")}
    assert asked == {"edit", "bash"}
    assert not (workdir / "made.txt").exists() and not (workdir / "bashed.txt").exists()


async def test_auto_edit_edits_without_asking_and_asks_for_commands(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    failed, asked = await _run_script(open_runtime, fake, workdir, clock, {"approval": "auto-edit"})
    assert (workdir / "made.txt").read_text() == "made\n"
    assert failed == {"sandboxed": "permission.rejected", "outside": "permission.rejected"}
    assert asked == {"bash"}


@needs_bwrap
async def test_auto_runs_what_stays_in_the_sandbox_and_asks_to_leave_it(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    failed, asked = await _run_script(open_runtime, fake, workdir, clock, {"approval": "auto"})
    assert (workdir / "made.txt").exists() and (workdir / "bashed.txt").read_text() == "inside\n"
    assert failed == {"outside": "permission.rejected"}
    assert asked == {"outside_sandbox"}


async def test_auto_asks_for_commands_where_nothing_sandboxes_them(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    cli = {"approval": "auto", "sandbox": {"mode": "full-access"}}
    failed, asked = await _run_script(open_runtime, fake, workdir, clock, cli)
    assert (workdir / "made.txt").exists() and not (workdir / "bashed.txt").exists()
    assert failed == {"sandboxed": "permission.rejected", "outside": "permission.rejected"}
    assert asked == {"bash"}


async def test_full_auto_asks_nothing(open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock) -> None:
    # No headless policy: an ask would wait for a reply that never comes and the settle would time out.
    failed, asked = await _run_script(open_runtime, fake, workdir, clock, {"approval": "full-auto"}, policy=None)
    assert failed == {} and asked == set()
    assert (workdir / "made.txt").exists() and (workdir / "bashed.txt").exists()


DENY_EDIT_AND_ECHO = [
    {"action": "edit", "pattern": "made.txt", "effect": "deny"},
    {"action": "bash", "pattern": "echo *", "effect": "deny"},
]


@pytest.mark.parametrize(
    ("agent", "rules"),
    [("build", DENY_EDIT_AND_ECHO), ("plan", [])],
    ids=["deny-rules", "plan-agent"],
)
async def test_deny_rules_and_the_plan_agents_own_rules_win_in_full_auto(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock, agent: str, rules: list
) -> None:
    cli = {"approval": "full-auto", "permission": rules}
    failed, asked = await _run_script(open_runtime, fake, workdir, clock, cli, agent, policy=None)
    assert failed == {c: "permission.denied" for c in ("edit", "sandboxed", "outside")}
    assert asked == set()
    assert not (workdir / "made.txt").exists() and not (workdir / "bashed.txt").exists()


async def test_a_mode_chosen_for_the_session_applies_to_it_alone(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    failed, asked = await _run_script(
        open_runtime, fake, workdir, clock, {"approval": "ask"}, choose=ApprovalMode.AUTO_EDIT
    )
    assert (workdir / "made.txt").exists()
    assert asked == {"bash"} and set(failed) == {"sandboxed", "outside"}
    async with await open_runtime(cli={"approval": "ask"}, tools="all", clock=clock) as runtime:
        chosen = (await runtime.sessions.create(location=workdir)).id
        other = (await runtime.sessions.create(location=workdir)).id
        runtime.sessions.choose_approval(chosen, ApprovalMode.FULL_AUTO)
        assert runtime.sessions.approval(chosen) is ApprovalMode.FULL_AUTO
        assert runtime.sessions.approval(other) is None  # the config's mode


async def test_choosing_a_wider_mode_answers_the_pending_asks_it_covers(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    fake.add(SCRIPT[0], {"text": "done"})
    async with await open_runtime(cli={"approval": "ask"}, tools="all", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "go")

        async def asked() -> None:
            while not await runtime.sessions.permissions.pending(sid):
                await asyncio.sleep(0.01)

        await asyncio.wait_for(asked(), 20)
        runtime.sessions.choose_approval(sid, ApprovalMode.AUTO)
        await settle(runtime, sid, timeout=30)
        log = await stored(runtime, sid)
    assert (workdir / "made.txt").exists()
    assert [(r.reply, r.message) for r in of_type(log, ev.PermissionReplied)] == [("once", None)]
    assert not of_type(log, ev.ToolFailed)
