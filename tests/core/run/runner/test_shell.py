"""``!command``: run through the bash tool without a model step, recorded, shown to the model next turn."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.core.log import events as ev
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, of_type, settle, stored


async def test_a_shell_command_runs_without_the_model_and_the_model_reads_it_next(
    open_runtime, fake: FakeProvider, workdir
) -> None:
    (workdir / "marker.txt").write_text("hello from the file\n")
    async with await open_runtime(policy="allow", tools="all") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.shell(sid, "cat marker.txt; echo done")
        await settle(runtime, sid)
        log = await stored(runtime, sid)
        assert fake.requests == []  # no model call
        ended = of_type(log, ev.ShellEnded)[0]
        assert ended.error is None and "hello from the file" in ended.output.text and "done" in ended.output.text
        assert "step.started" not in kinds(log)
        fake.add({"text": "I see the file."})
        await runtime.sessions.prompt(sid, "what did it print?")
        await settle(runtime, sid)
    users = [m for m in fake.accepted[0].body["messages"] if m["role"] == "user"]
    texts = [c["text"] for m in users for c in m["content"]]
    shell = next(t for t in texts if t.startswith("The user ran this shell command"))
    assert "$ cat marker.txt; echo done" in shell and "hello from the file" in shell
    assert texts[-1] == "what did it print?"


@pytest.mark.parametrize("approval", ["ask", "auto-edit"])
async def test_a_shell_command_is_the_users_own_and_runs_without_an_ask(
    open_runtime, fake: FakeProvider, workdir, approval: str
) -> None:
    # No headless policy: an ask would wait for a reply that never comes.
    async with await open_runtime(cli={"approval": approval}, tools="all") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.shell(sid, "echo mine > mine.txt")
        await settle(runtime, sid)
        log = await stored(runtime, sid)
    ended = of_type(log, ev.ShellEnded)[0]
    assert ended.error is None and (workdir / "mine.txt").read_text() == "mine\n"
    assert not of_type(log, ev.PermissionAsked)


async def test_a_deny_rule_still_stops_a_shell_command(open_runtime, fake: FakeProvider, workdir) -> None:
    (workdir / "keep.txt").write_text("keep")
    cli = {"approval": "full-auto", "permission": [{"action": "bash", "pattern": "rm *", "effect": "deny"}]}
    async with await open_runtime(cli=cli, tools="all") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.shell(sid, "rm keep.txt")
        await settle(runtime, sid)
        ended = of_type(await stored(runtime, sid), ev.ShellEnded)[0]
    assert ended.output is None and ended.error is not None and ended.error.type == "permission.denied"
    assert (workdir / "keep.txt").exists()


async def test_an_interrupted_shell_command_ends_aborted_and_does_not_run_again(open_runtime, workdir) -> None:
    async with await open_runtime(policy="allow", tools="all") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        seen: list[ev.ToolOutputDelta] = []
        with runtime.sessions.subscribe(sid) as deltas:
            await runtime.sessions.shell(sid, "echo started; sleep 30")

            async def first_output() -> None:
                async for item in deltas:
                    if isinstance(item, ev.ToolOutputDelta):
                        seen.append(item)
                        return

            await asyncio.wait_for(first_output(), 30)
        assert seen[0].call_id == "shell" and "started" in seen[0].delta
        await runtime.sessions.interrupt(sid)
        await settle(runtime, sid)
        log = await stored(runtime, sid)
        await runtime.sessions.wake(sid)
        await settle(runtime, sid)
        assert len(of_type(await stored(runtime, sid), ev.ShellEnded)) == 1
    assert of_type(log, ev.ShellEnded)[0].error.type == "aborted"
