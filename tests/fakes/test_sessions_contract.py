"""One script, two facades: ``FakeSessions`` must answer it as the real ``Sessions`` does.

The TUI's Pilot tests run over the double; if it drifted from the facade (a
title the store would not give, an inbox without compaction rows, an unknown
session that does not raise) those tests would pass against a core that does
not exist. So the same calls go to both, the runner's part played by
publishing events directly, and what the TUI can observe is compared.

Their shape is the type checker's to hold: both are assigned to
``tui.port.SessionsPort`` below, and a test runs mypy over this file and the port.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.api import events as ev
from agent_tui.core.api import open_sessions
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.tool_output import ToolOutput
from tests.fakes.sessions import FakeSessions

if TYPE_CHECKING:  # the shape: each facade is a SessionsPort, or mypy says where it differs
    from agent_tui.core.api import Sessions
    from agent_tui.tui.port import SessionsPort

    def _fake_is_a_port(fake: FakeSessions) -> SessionsPort:
        return fake

    def _real_is_a_port(real: Sessions) -> SessionsPort:
        return real


SID = "ses_contract"


@dataclass
class Double:
    """A facade plus the runner's side: durable events and live deltas, published directly."""

    sessions: Any
    publish: Callable[[str, ev.DurableEvent], Awaitable[Any]]
    delta: Callable[[ev.LiveEvent], Any]


async def raises(value: Awaitable[Any]) -> str:
    """The error's class name, or "ok": the TUI shows only ``str(error)``, but both must refuse."""
    try:
        await value
    except Exception as error:  # noqa: BLE001 - the observation
        return type(error).__name__
    return "ok"


def plan_output(items: list[dict[str, str]]) -> ToolOutput:
    return ToolOutput(text="Plan", data={"plan": items})


def row(record: Any) -> tuple:
    return (record.id, record.title, record.location, record.agent, record.model, record.message_count, record.head_seq)


def inbox(rows: list[Any], names: dict[str, str]) -> list[tuple]:
    return [(names.get(r.id, r.id), r.kind, r.delivery, r.prompt, r.admitted_seq) for r in rows]


async def replay(sessions: Any, after: int | None = None) -> list[tuple]:
    """The log without ``follow``: (seq, type) per event, then the one marker and its seq."""
    out: list[tuple] = []
    async for item in sessions.log(SID, after=after):
        out.append((item.seq, item.type) if isinstance(item, ev.StoredEvent) else ("synced", item.seq))
    return out


async def script(d: Double, where: Path) -> list[Any]:
    s = d.sessions
    seen: list[Any] = []
    location = str(where)
    seen.append(row(await s.create(SID, location=location, model="openai/fake")))
    first = await s.prompt(SID, ev.text_prompt("fix the parser\nand its tests"), id="msg_first")
    second = await s.prompt(SID, ev.text_prompt("then the docs"), id="msg_second", delivery="queue")
    seen.append([(r.input_id, r.kind, r.delivery, r.admitted_seq) for r in (first, second)])
    seen.append(inbox(await s.pending(SID), {}))
    await s.withdraw(SID, "msg_second")
    seen.append(await raises(s.withdraw(SID, "msg_second")))  # withdrawn already
    compaction = await s.compact(SID)
    again = await s.compact(SID)  # one barrier pending at a time: the same one back
    names = {compaction.input_id: "compaction"}
    seen.append((again.input_id == compaction.input_id, compaction.kind, compaction.delivery))
    seen.append(inbox(await s.pending(SID), names))
    seen.append(row(await s.get(SID)))  # titled by its first prompt's first line

    await d.publish(SID, ev.ExecutionStarted())  # the runner: promote the prompt, ask for a permission
    await d.publish(SID, ev.PromptPromoted(input_id="msg_first"))
    await d.publish(
        SID,
        ev.PermissionAsked(
            request_id="perm_1",
            assistant_message_id="msg_a",
            call_id="c1",
            action="bash",
            resources=["make"],
        ),
    )
    seen.append(inbox(await s.pending(SID), names))
    seen.append([(p.request_id, p.action, p.resources) for p in await s.permissions.pending(SID)])
    await s.permissions.reply("perm_1", "once")
    seen.append(list(await s.permissions.pending(SID)))  # answered: no longer waiting

    seen.append(await replay(s))
    seen.append(await replay(s, after=6))
    seen.append([row(r) for r in await s.list(location=location)])
    seen.append([r.id for r in await s.list(search="pars")])
    seen.append([r.id for r in await s.list(location="/elsewhere")])
    seen.append(getattr(await s.latest(location), "id", None))
    seen.append(await s.latest("/elsewhere"))
    seen.append(s.active())

    seen.append(await s.plan(SID))  # none yet
    plan = [{"content": "fix the parser", "status": "in_progress"}, {"content": "docs", "status": "pending"}]
    await d.publish(SID, ev.StepStarted(assistant_message_id="msg_a", agent="build", model="openai/fake"))
    for call_id, name in (("c2", "todo"), ("c3", "read"), ("c4", "todo")):  # a read and a failed todo change nothing
        await d.publish(SID, ev.ToolCalled(assistant_message_id="msg_a", call_id=call_id, name=name, input={}))
    await d.publish(SID, ev.ToolSucceeded(assistant_message_id="msg_a", call_id="c2", output=plan_output(plan)))
    await d.publish(SID, ev.ToolSucceeded(assistant_message_id="msg_a", call_id="c3", output=plan_output([])))
    error = ErrorInfo(type="tool.input", message="two in progress")
    await d.publish(SID, ev.ToolFailed(assistant_message_id="msg_a", call_id="c4", error=error))
    seen.append(await s.plan(SID))

    with s.subscribe(SID) as deltas:
        d.delta(ev.TextDelta(session_id=SID, assistant_message_id="msg_a", ordinal=0, delta="hi"))
        async for item in deltas:
            if not isinstance(item, ev.HeadAdvanced):
                seen.append(item)
                break

    seen.append(
        [
            await raises(s.get("ses_nope")),
            await raises(s.pending("ses_nope")),
            await raises(s.permissions.pending("ses_nope")),
            await raises(s.plan("ses_nope")),
        ]
    )
    return seen


async def test_the_fake_answers_the_script_as_the_real_facade_does(workdir: Path) -> None:
    fake = FakeSessions()

    async def fake_publish(session_id: str, event: ev.DurableEvent) -> ev.StoredEvent:
        return fake.publish(session_id, event)

    real = await open_sessions()  # this test's own AGENT_TUI_HOME; the idle executor: nothing runs
    try:
        expected = await script(Double(real, real._store.publish, real._bus.publish), workdir)  # the runner's side
    finally:
        await real.close()
    assert await script(Double(fake, fake_publish, fake.delta), workdir) == expected
    assert expected[3] == "EventRejected" and expected[6][1] == "fix the parser"
    assert expected[-1] == ["UnknownSession"] * 4
    plans = [item for item in expected if type(item).__name__ == "PlanRecord"]
    assert [(p.call_id, [i.content for i in p.items], p.open) for p in plans] == [
        (None, [], False),
        ("c2", ["fix the parser", "docs"], True),
    ]


def test_the_type_checker_holds_both_facades_to_the_port() -> None:
    """mypy over this file (the assignments above) and the port: the shape is checked, not shimmed."""
    root = Path(__file__).resolve().parents[2]
    here = Path(__file__).resolve().relative_to(root)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--follow-imports=silent",
            "--ignore-missing-imports",
            "--no-incremental",
            "--cache-dir=/dev/null",
            "--explicit-package-bases",
            str(here),
            "agent_tui/tui/port.py",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
