"""``agent-tui run`` as a user drives it: the installed entry point in a subprocess,
the fake provider over real HTTP, assertions on exit codes, output and the stored log."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import UNDER_LOAD_S, LaunchMode


class Cli:
    def __init__(self, fake: FakeProvider, workdir: Path, home: Path, mode: LaunchMode) -> None:
        self.fake, self.workdir, self.home, self.mode = fake, workdir, home, mode
        self.marks = home / "marks.txt"
        self.started: list[asyncio.subprocess.Process] = []

    def env(self) -> dict[str, str]:
        env = self.mode.environ()
        env.update(
            {
                "AGENT_TUI_HOME": str(self.home),
                "AGENT_TUI_TEST_TOOLS": "agent_tui.testing.test_tools:register",
                "AGENT_TUI_TEST_MARKS": str(self.marks),
                "LITELLM_OFFLINE_MODE": "true",
            }
        )
        return env

    async def start(self, *args: str, ignoring: tuple[int, ...] = ()) -> asyncio.subprocess.Process:
        """``agent-tui ARGS``; ``ignoring``: signals it starts with ignored (``nohup``, a script's ``&``)."""

        def ignore() -> None:
            for signum in ignoring:
                signal.signal(signum, signal.SIG_IGN)

        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "agent_tui",
            *args,
            cwd=self.workdir,
            env=self.env(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            preexec_fn=ignore if ignoring else None,
        )
        self.started.append(proc)
        return proc

    async def close(self) -> None:
        """Kill what a failed test left running: its launches (a warm child is hung up on by its
        warm process when its launcher dies)."""
        for proc in self.started:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()

    def model_flags(self) -> list[str]:
        return ["--model", "openai/fake-model", "--api-base", self.fake.openai_base, "--api-key", "test-key"]

    async def run(self, *args: str, timeout: float = UNDER_LOAD_S) -> tuple[int, str, str]:
        proc = await self.start("run", *self.model_flags(), *args)
        out, err = await asyncio.wait_for(proc.communicate(b""), timeout)
        return proc.returncode or 0, out.decode(), err.decode()

    async def log(self, session_id: str) -> list[dict]:
        proc = await self.start("log", session_id)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, err.decode()
        return [json.loads(line) for line in out.decode().splitlines()]

    async def wait_mark(self, needle: str, timeout: float = UNDER_LOAD_S) -> None:
        async def seen() -> None:
            while not (self.marks.exists() and needle in self.marks.read_text()):
                await asyncio.sleep(0.02)

        await asyncio.wait_for(seen(), timeout)


@pytest.fixture
async def cli(fake: FakeProvider, workdir: Path, agent_home: Path, launch_mode: LaunchMode) -> AsyncIterator[Cli]:
    cli = Cli(fake, workdir, agent_home, launch_mode)
    yield cli
    await cli.close()


def session_of(stderr: str) -> str:
    return next(line.split()[1] for line in stderr.splitlines() if line.startswith("session "))


def types(log: list[dict]) -> list[str]:
    return [e["type"].removeprefix("session.").removesuffix(".1") for e in log]


async def test_prints_the_answer_and_the_session_id(cli: Cli, fake: FakeProvider) -> None:
    fake.add({"text": "The answer is 42.", "chunks": 3})
    code, out, err = await cli.run("what is it?")
    assert code == 0, err
    assert out.strip() == "The answer is 42."
    log = await cli.log(session_of(err))
    assert types(log)[-1] == "execution.succeeded"


async def test_json_format_prints_durable_events_and_marked_deltas(cli: Cli, fake: FakeProvider) -> None:
    fake.add({"text": "streamed words here", "chunks": 3, "delay_ms": 20})
    code, out, err = await cli.run("--format", "json", "go")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    durable = [line for line in lines if not line.get("live")]
    live = [line for line in lines if line.get("live")]
    assert [d["seq"] for d in durable] == sorted(d["seq"] for d in durable)
    assert {"seq", "type", "created", "data"} <= set(durable[0])
    assert types(durable)[-1] == "execution.succeeded"
    assert "".join(d["delta"] for d in live if d["kind"] == "text.delta") == "streamed words here"


async def test_json_format_carries_each_plan_the_todo_tool_writes(cli: Cli, fake: FakeProvider) -> None:
    """A plan update is the todo call's ``tool.success``: ``data.output.data.plan`` is the whole checklist."""
    plan = [{"content": "look", "status": "done"}, {"content": "fix", "status": "in_progress"}]
    fake.add({"tool_calls": [{"id": "call_t", "name": "todo", "arguments": {"items": plan}}]}, {"text": "on it"})
    code, out, err = await cli.run("--format", "json", "go")
    assert code == 0, err
    durable = [line for line in map(json.loads, out.splitlines()) if not line.get("live")]
    called = [d for d in durable if d["type"] == "session.tool.called.1" and d["data"]["name"] == "todo"]
    assert [d["data"]["call_id"] for d in called] == ["call_t"]
    (settled,) = [d for d in durable if d["type"] == "session.tool.success.1" and d["data"]["call_id"] == "call_t"]
    assert settled["data"]["output"]["data"] == {"plan": plan}
    assert settled["data"]["output"]["text"].startswith("Plan updated (1/2 done):")


async def test_prompt_from_stdin_and_continue_with_a_model_switch(cli: Cli, fake: FakeProvider) -> None:
    fake.add({"text": "first"}, {"text": "second"})
    proc = await cli.start("run", *cli.model_flags(), "-")
    out, err = await proc.communicate(b"hello from stdin\n")
    assert proc.returncode == 0 and out.decode().strip() == "first"
    sid = session_of(err.decode())
    code, out, err = await cli.run("--continue", "--model", "openai/other-model", "and again")
    assert code == 0 and session_of(err) == sid and out.strip() == "second"
    assert fake.accepted[1].body["model"] == "other-model"
    log = await cli.log(sid)
    assert "model.selected" in types(log)
    assert fake.accepted[0].body["messages"][-1]["content"] in (
        "hello from stdin\n",
        [{"type": "text", "text": "hello from stdin\n"}],
    )


async def test_a_failed_execution_exits_1_with_the_error_type(cli: Cli, fake: FakeProvider) -> None:
    fake.add({"error": {"status": 401, "kind": "auth", "message": "bad key"}})
    code, out, err = await cli.run("hi")
    assert code == 1
    assert "provider.auth" in err


async def test_unreadable_instructions_fail_the_run_and_its_prompt_goes_with_the_next_one(
    cli: Cli, fake: FakeProvider, workdir: Path
) -> None:
    agents = workdir / "AGENTS.md"
    agents.write_bytes(b"Project rule: \xff\xfe use tabs.")
    fake.add({"text": "both answered"})
    code, out, err = await cli.run("first")
    assert code == 1 and out == ""
    assert f"instructions.unavailable: Instructions unavailable: {agents.resolve()} is not UTF-8" in err
    assert fake.requests == []
    sid = session_of(err)
    agents.write_text("Project rule: use tabs.")
    code, out, err = await cli.run("--continue", "second")
    assert code == 0 and session_of(err) == sid and out.strip() == "both answered", err
    body = fake.accepted[0].body
    assert "Project rule: use tabs." in json.dumps([m for m in body["messages"] if m["role"] == "system"])
    users = [
        m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
        for m in body["messages"]
        if m["role"] == "user"
    ]
    assert users == ["first", "second"]  # the pending prompt was not lost


async def test_a_missing_key_names_the_variable(cli: Cli, fake: FakeProvider, workdir: Path) -> None:
    env = {k: v for k, v in cli.env().items() if k != "OPENAI_API_KEY"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_tui",
        "run",
        "--model",
        "openai/gpt-4o",
        "hi",
        cwd=workdir,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode == 2  # a config error: nothing ran
    assert "OPENAI_API_KEY" in err.decode() and len(err.decode().strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("sig", "code", "reason"),
    [(signal.SIGINT, 130, "user"), (signal.SIGTERM, 143, "shutdown"), (signal.SIGHUP, 129, "shutdown")],
)
async def test_signals_interrupt_cleanly(cli: Cli, fake: FakeProvider, sig: int, code: int, reason: str) -> None:
    fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {"label": "signal"}}]})
    proc = await cli.start("run", *cli.model_flags(), "block")
    await cli.wait_mark("block signal")
    proc.send_signal(sig)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == code, err.decode()
    log = await cli.log(session_of(err.decode()))
    assert types(log)[-3:] == ["tool.failed", "step.failed", "execution.interrupted"]
    assert log[-1]["data"]["reason"] == reason


@pytest.mark.parametrize(
    ("ignored", "then", "code", "reason"),
    [(signal.SIGHUP, signal.SIGINT, 130, "user"), (signal.SIGINT, signal.SIGTERM, 143, "shutdown")],
    ids=["nohup", "background-job"],
)
async def test_a_signal_the_caller_ignores_stays_ignored(
    cli: Cli, fake: FakeProvider, ignored: int, then: int, code: int, reason: str
) -> None:
    """Under ``nohup`` (SIGHUP ignored) or as a script's background job (SIGINT ignored) the run
    goes on through that signal, warm or not; the next signal it does not ignore ends it."""
    fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {"label": "ignoring"}}]})
    proc = await cli.start("run", *cli.model_flags(), "block", ignoring=(ignored,))
    await cli.wait_mark("block ignoring")
    ignoring, catching = dispositions(await cli.mode.agent_pid(proc))
    assert ignored in ignoring and ignored not in catching
    proc.send_signal(ignored)
    proc.send_signal(then)  # had the first one landed, the run would have ended by it (the first one counts)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == code, err.decode()
    log = await cli.log(session_of(err.decode()))
    assert types(log)[-1] == "execution.interrupted" and log[-1]["data"]["reason"] == reason


def dispositions(pid: int) -> tuple[set[int], set[int]]:
    """The signals ``pid`` ignores and those it catches, as ``/proc`` shows them."""
    fields = dict(line.split(":\t") for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line)
    return tuple({n for n in range(1, 65) if int(fields[name], 16) >> (n - 1) & 1} for name in ("SigIgn", "SigCgt"))


START_UP_DELAYS_S = (0.0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.2, 2.0)
"""When the signal comes after the launch: before the interpreter is up, while it imports, while
the launcher waits for its warm child, while the run opens the store, and once it runs."""


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
async def test_a_launch_ends_on_a_hangup_or_term_at_any_moment_of_start_up(
    cli: Cli, fake: FakeProvider, sig: int
) -> None:
    """Closing the terminal (or ``kill``) just after a launch ends it, however far it got: with 129
    or 143 once the run catches it, or by the signal itself before that; nothing is left running."""
    fake.add(*[{"tool_calls": [{"id": f"call_{i}", "name": "block", "arguments": {}}]} for i in START_UP_DELAYS_S])
    ended = {}
    for delay in START_UP_DELAYS_S:
        proc = await cli.start("run", *cli.model_flags(), "block")
        await asyncio.sleep(delay)  # the input under test: how far the launch got
        proc.send_signal(sig)
        try:
            _, err = await asyncio.wait_for(proc.communicate(), 30)
        except TimeoutError:
            raise AssertionError(f"still running 30 s after a signal {delay} s into its launch") from None
        ended[delay] = proc.returncode
        assert proc.returncode in (128 + sig, -sig), (delay, err.decode())
    await no_agent_running(cli.mode)


async def no_agent_running(mode: LaunchMode, timeout: float = 20) -> None:
    """In-process, the launcher was the agent; warm, its child ends too (hung up on by its warm
    process, at the latest, when the launcher died before it knew the child)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while mode.warm and (running := (await mode.status())["running"]):
        assert asyncio.get_running_loop().time() < deadline, f"still running: {running}"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
async def test_a_run_whose_clean_up_wedges_still_ends_on_a_signal(
    cli: Cli, fake: FakeProvider, sig: int, code: int
) -> None:
    """A tool's thread that never returns kept the process waiting for its executor after the run
    was interrupted, and the loop swallowed every further SIGTERM: it ends after the grace."""
    from agent_tui import exit_grace

    fake.add({"tool_calls": [{"id": "call_1", "name": "wedge", "arguments": {"label": "stuck"}}]})
    proc = await cli.start("run", *cli.model_flags(), "wedge")
    await cli.wait_mark("wedge stuck")
    proc.send_signal(sig)
    out, err = await asyncio.wait_for(proc.communicate(), exit_grace.GRACE_S + 30)
    assert proc.returncode == code, err.decode()
    assert "after signal" in err.decode()
    log = await cli.log(session_of(err.decode()))
    assert types(log)[-1] == "execution.interrupted"  # what the clean-up records came first


async def test_crash_recovery_fails_the_orphaned_tool_and_never_reruns_it(cli: Cli, fake: FakeProvider) -> None:
    fake.add(
        {"tool_calls": [{"id": "call_1", "name": "block", "arguments": {"label": "crash"}}]}, {"text": "recovered"}
    )
    proc = await cli.start("run", *cli.model_flags(), "block forever")
    await cli.wait_mark("block crash")
    await cli.mode.kill_agent(proc)  # SIGKILL: no cleanup runs
    _, err = await proc.communicate()
    sid = session_of(err.decode())
    assert types(await cli.log(sid))[-1] == "tool.called"

    code, out, err = await cli.run("--session", sid, "carry on")
    assert code == 0, err
    log = await cli.log(sid)
    kinds = types(log)
    stale = next(e for e in log if e["type"] == "session.tool.failed.1")
    assert stale["data"]["error"] == {
        "type": "tool.stale",
        "message": "Tool execution interrupted",
        "retry_after_ms": None,
    }
    assert kinds.index("tool.failed") < kinds.index("step.started", kinds.index("tool.failed"))
    orphan = log[kinds.index("tool.called")]["data"]["assistant_message_id"]
    assert stale["data"]["assistant_message_id"] == orphan
    assert cli.marks.read_text().count("block crash") == 1  # never executed again
    assert out.strip() == "recovered"


def _alive_members(pgid: int) -> list[int]:
    from agent_tui.tools.process_group import _members

    return [pid for pid, _, state in _members(pgid) if state != "Z"]


async def test_processes_a_killed_agent_left_running_are_killed_by_the_sweep(cli: Cli, fake: FakeProvider) -> None:
    """SIGKILL leaves the command running in its own process group; the next run of the session
    (which fails the stale call) also kills what that call started."""
    pid_file = cli.workdir / "group.pid"
    # The group's id, not the shell's pid: in the sandbox, bubblewrap leads the group.
    command = f"awk '{{print $5}}' /proc/$$/stat > {pid_file}; sleep 300 & sleep 301"
    fake.add(
        {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": command}}]}, {"text": "recovered"}
    )
    proc = await cli.start("run", *cli.model_flags(), "--permission", "allow", "start a server")
    for _ in range(600):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.05)
    group = int(pid_file.read_text())
    for _ in range(200):  # the shell and both sleeps (and bubblewrap) are in the group
        if len(_alive_members(group)) >= 3:
            break
        await asyncio.sleep(0.05)
    await cli.mode.kill_agent(proc)  # SIGKILL: no cleanup runs
    _, err = await proc.communicate()
    sid = session_of(err.decode())
    assert len(_alive_members(group)) >= 2  # orphaned, still running
    code, out, err = await cli.run("--session", sid, "carry on")
    assert code == 0, err
    for _ in range(100):
        if not _alive_members(group):
            break
        await asyncio.sleep(0.05)
    assert _alive_members(group) == []
    assert "tool.failed" in types(await cli.log(sid))


async def test_a_second_process_neither_sweeps_nor_drains_a_live_session(cli: Cli, fake: FakeProvider) -> None:
    fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {"label": "owner"}}]})
    owner = await cli.start("run", *cli.model_flags(), "hold the session")
    await cli.wait_mark("block owner")
    while not (line := (await owner.stderr.readline()).decode()).startswith("session "):  # after the --api-key warning
        assert line, "the run ended before naming its session"
    sid = session_of(line)
    code, out, err = await cli.run("--session", sid, "me too")
    assert code == 5
    assert str(await cli.mode.agent_pid(owner)) in err
    assert "is admitted there as a steer: it is read at the next step" in err
    log = await cli.log(sid)
    assert "tool.failed" not in types(log)  # the running tool was not swept
    assert types(log)[-1] == "prompt.admitted"
    assert len(fake.requests) == 1  # no second drain called the model
    owner.kill()
    await owner.communicate()


async def test_text_mode_tells_a_waiting_user_about_retries(cli: Cli, fake: FakeProvider, agent_home: Path) -> None:
    (agent_home / "config.toml").write_text("[retry]\nbase_delay_ms = 10\n")
    fake.add({"error": {"status": 503, "kind": "overloaded"}}, {"text": "made it"})
    code, out, err = await cli.run("hi")
    assert code == 0 and out.strip() == "made it"
    assert "retrying in" in err and "attempt 2" in err


async def test_without_a_prompt_run_needs_a_session_to_resume(cli: Cli) -> None:
    code, _, err = await cli.run()
    assert code == 2 and "--session ID / --continue" in err


async def test_resume_without_a_prompt_continues_a_step_a_crash_cut_short(cli: Cli, fake: FakeProvider) -> None:
    fake.add({"text": "partial answer", "chunks": 2, "hold": True}, {"text": "whole answer"})
    proc = await cli.start("run", *cli.model_flags(), "answer me")
    await fake.wait_for("held", timeout=UNDER_LOAD_S)
    await cli.mode.kill_agent(proc)  # SIGKILL with the step open
    _, err = await proc.communicate()
    sid = session_of(err.decode())
    code, out, err = await cli.run("--session", sid)
    assert code == 0, err
    assert out.strip() == "whole answer"
    kinds = types(await cli.log(sid))
    assert kinds.count("step.failed") == 1 and kinds.count("step.ended") == 1 and kinds[-1] == "execution.succeeded"
    assert len(fake.accepted) == 2


def _mcp_config(workdir: Path, servers: dict[str, list[str]]) -> None:
    config = workdir / ".agent-tui" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(
        "".join(
            f"[mcp.servers.{name}]\ncommand = {json.dumps(command)}\nstartup_timeout_s = 60\n"
            for name, command in servers.items()
        )
    )


async def test_run_uses_the_mcp_servers_and_says_when_one_fails(cli: Cli, fake: FakeProvider, workdir: Path) -> None:
    broken = workdir / "broken.py"
    broken.write_text("import sys\nprint('tracker: bad credentials', file=sys.stderr)\nsys.exit(2)\n")
    server = Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py"
    _mcp_config(workdir, {"notes": [sys.executable, str(server), "stdio"], "tracker": [sys.executable, str(broken)]})
    fake.add(
        {"tool_calls": [{"id": "call_1", "name": "mcp__notes__echo", "arguments": {"text": "headless"}}]},
        {"text": "Echoed."},
    )
    code, out, err = await cli.run("--trust", "--permission", "allow", "echo it", timeout=120)
    assert code == 0, err
    assert out.strip() == "Echoed."
    notices = [line for line in err.splitlines() if line.startswith("agent-tui: MCP server tracker")]
    assert len(notices) == 1 and "failed to start" in notices[0]
    assert "tracker: bad credentials" in err
    assert {t["function"]["name"] for t in fake.accepted[0].body["tools"]} >= {"mcp__notes__echo"}
    tool_message = next(m for m in fake.accepted[1].body["messages"] if m["role"] == "tool")
    assert tool_message["content"] == "echo: headless"


async def test_run_reads_a_mentioned_mcp_resource_and_an_unknown_one_is_one_line(
    cli: Cli, fake: FakeProvider, workdir: Path
) -> None:
    server = Path(__file__).resolve().parents[1] / "fakes" / "mcp_resources.py"
    _mcp_config(workdir, {"notes": [sys.executable, str(server)]})
    fake.add({"text": "Tuesday."})
    code, out, err = await cli.run("--trust", "when? @notes:notes://readme", timeout=120)
    assert code == 0, err
    user = [m for m in fake.accepted[0].body["messages"] if m["role"] == "user"][-1]["content"]
    assert user[1]["text"] == '<file path="notes:notes://readme">\n# Notes\nThe launch is on Tuesday.\n</file>'
    admitted = next(e for e in await cli.log(session_of(err)) if e["type"] == "session.prompt.admitted.1")
    assert admitted["data"]["prompt"][1]["type"] == "resource"
    code, out, err = await cli.run("--trust", "@notes:notes://missing", timeout=120)
    assert code == 2 and "@notes:notes://missing: MCP server notes: cannot read notes://missing" in err
    assert len(fake.requests) == 1


async def test_a_headless_run_declines_a_servers_question_with_a_line_and_logs_the_exchange(
    cli: Cli, fake: FakeProvider, workdir: Path
) -> None:
    asking = Path(__file__).resolve().parents[1] / "fakes" / "mcp_asking.py"
    _mcp_config(workdir, {"asking": [sys.executable, str(asking)]})
    fake.add({"tool_calls": [{"id": "call_1", "name": "mcp__asking__book", "arguments": {}}]}, {"text": "No table."})
    code, out, err = await cli.run("--trust", "--permission", "allow", "book a table", timeout=120)
    assert code == 0, err
    assert out.strip() == "No table."
    assert (
        'agent-tui: MCP server asking asked "Book a table: which day, for how many?": declined '
        "(no one to answer: agent-tui runs headless)"
    ) in err.splitlines()
    tool_message = next(m for m in fake.accepted[1].body["messages"] if m["role"] == "tool")
    assert tool_message["content"] == "booking declined"
    log = await cli.log(session_of(err))
    asked = next(e for e in log if e["type"] == "session.elicitation.asked.1")["data"]
    answered = next(e for e in log if e["type"] == "session.elicitation.answered.1")["data"]
    assert (asked["server"], asked["call_id"], asked["mode"]) == ("asking", "call_1", "form")
    assert set(asked["requested_schema"]["properties"]) == {"date", "guests", "vegan", "seat"}
    assert answered == {
        "request_id": asked["request_id"],
        "action": "decline",
        "content": None,
        "reason": "no one to answer: agent-tui runs headless",
    }


async def test_a_headless_run_declines_a_servers_sampling_request_with_a_line_and_logs_it(
    cli: Cli, fake: FakeProvider, workdir: Path
) -> None:
    sampling = Path(__file__).resolve().parents[1] / "fakes" / "mcp_sampling.py"
    _mcp_config(workdir, {"sampler": [sys.executable, str(sampling)]})
    with (workdir / ".agent-tui" / "config.toml").open("a") as config:
        config.write("sampling = true\n")  # opted in: still no one to approve it
    call = {"id": "call_1", "name": "mcp__sampler__ask_model", "arguments": {"question": "Capital?"}}
    fake.add({"tool_calls": [call]}, {"text": "No answer."})
    code, out, err = await cli.run("--trust", "--permission", "allow", "ask it", timeout=120)
    assert code == 0, err
    assert out.strip() == "No answer."
    line = "agent-tui: MCP server sampler asked to sample: declined (no one to answer: agent-tui runs headless)"
    assert line in err.splitlines()
    tool_message = next(m for m in fake.accepted[1].body["messages"] if m["role"] == "tool")
    assert "agent-tui declined to sample: no one to answer: agent-tui runs headless" in tool_message["content"]
    assert len(fake.requests) == 2  # the model was never asked for the server
    log = await cli.log(session_of(err))
    asked = next(e for e in log if e["type"] == "session.sampling.asked.1")["data"]
    answered = next(e for e in log if e["type"] == "session.sampling.answered.1")["data"]
    assert (asked["server"], asked["call_id"], asked["max_tokens"]) == ("sampler", "call_1", 64)
    assert asked["messages"][1] == {"role": "user", "text": "Capital?"}
    assert (answered["request_id"], answered["action"], answered["usage"]) == (asked["request_id"], "decline", None)


async def test_an_mcp_call_a_killed_agent_left_running_is_swept_and_its_server_ends(
    cli: Cli, fake: FakeProvider, workdir: Path
) -> None:
    server = Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py"
    _mcp_config(workdir, {"notes": [sys.executable, str(server), "stdio"]})
    fake.add({"tool_calls": [{"id": "call_1", "name": "mcp__notes__wait", "arguments": {}}]}, {"text": "recovered"})
    proc = await cli.start("run", *cli.model_flags(), "--trust", "--permission", "allow", "wait")
    started = workdir / "wait.started"  # FAKE_MCP_MARKS is unset: the server marks its working directory
    for _ in range(1200):
        if started.exists() and started.read_text():
            break
        await asyncio.sleep(0.05)
    server_pid = int(started.read_text())
    await cli.mode.kill_agent(proc)  # SIGKILL: no cleanup runs
    _, err = await proc.communicate()
    sid = session_of(err.decode())
    before = types(await cli.log(sid))
    assert "tool.called" in before and not {"tool.success", "tool.failed"} & set(before)  # left running
    for _ in range(200):  # its stdin closed with the agent: the server ends by itself
        if not _alive(server_pid):
            break
        await asyncio.sleep(0.05)
    assert not _alive(server_pid)
    code, out, err = await cli.run("--session", sid, "carry on", timeout=120)
    assert code == 0, err
    stale = next(e for e in await cli.log(sid) if e["type"] == "session.tool.failed.1")
    assert stale["data"]["error"]["type"] == "tool.stale" and out.strip() == "recovered"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z")


async def test_at_mentions_and_file_flags_attach_what_the_model_reads(
    cli: Cli, fake: FakeProvider, workdir: Path
) -> None:
    (workdir / "a.py").write_text("print('from a')\n")
    (workdir / "b.txt").write_text("bee\n")
    fake.add({"text": "read them"})
    code, out, err = await cli.run("--file", "b.txt", "what does @a.py do?")
    assert code == 0, err
    user = [m for m in fake.accepted[0].body["messages"] if m["role"] == "user"][-1]["content"]
    texts = [c["text"] for c in user]
    assert texts[0] == "what does @a.py do?"
    assert texts[1].startswith('<file path="a.py">') and "print('from a')" in texts[1]
    assert texts[2].startswith('<file path="b.txt">') and "bee" in texts[2]
    admitted = next(e for e in await cli.log(session_of(err)) if e["type"] == "session.prompt.admitted.1")
    assert [p["type"] for p in admitted["data"]["prompt"]] == ["text", "file", "file"]


async def test_a_mentioned_subagent_asks_the_model_to_hand_it_the_work(cli: Cli, fake: FakeProvider) -> None:
    fake.add({"text": "asked"})
    code, out, err = await cli.run("--agent", "plan", "@explore where is the config read?")
    assert code == 0, err
    user = [m for m in fake.accepted[0].body["messages"] if m["role"] == "user"][-1]["content"]
    assert user[0]["text"] == "@explore where is the config read?"
    assert 'call the task tool with agent "explore"' in user[1]["text"]
    admitted = next(e for e in await cli.log(session_of(err)) if e["type"] == "session.prompt.admitted.1")
    assert admitted["data"]["prompt"][1]["type"] == "agent"


async def test_a_missing_mention_is_one_line_and_nothing_is_sent(cli: Cli, fake: FakeProvider) -> None:
    code, out, err = await cli.run("explain @nope.py")
    assert code == 2
    assert "@nope.py: no such file or folder" in err
    assert fake.requests == [] and "session " not in err


async def test_the_agent_flag_selects_a_primary_agent_and_names_the_choices_otherwise(
    cli: Cli, fake: FakeProvider
) -> None:
    code, out, err = await cli.run("--agent", "ghost", "go")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == "agent-tui: unknown agent 'ghost'; the primary agents: build, plan"
    assert fake.accepted == []

    fake.add({"tool_calls": [{"id": "call_e", "name": "bash", "arguments": {"command": "touch x"}}]}, {"text": "plan"})
    code, out, err = await cli.run("--agent", "plan", "--permission", "allow", "--format", "json", "go")
    assert code == 0, err
    assert not (cli.workdir / "x").exists()
    durable = [line for line in map(json.loads, out.splitlines()) if not line.get("live")]
    assert {d["data"]["agent"] for d in durable if d["type"] == "session.step.started.1"} == {"plan"}
    (failed,) = [d for d in durable if d["type"] == "session.tool.failed.1"]
    assert "the plan agent may not bash 'touch x'" in failed["data"]["error"]["message"]

    fake.add({"text": "built"})
    code, out, err = await cli.run("--continue", "--agent", "build", "now build it")
    assert code == 0, err
    assert "agent.selected" in types(await cli.log(session_of(err)))


def _path_without_bwrap(folder: Path) -> str:
    """A ``PATH`` with every command of this machine's but bubblewrap."""
    folder.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        with contextlib.suppress(OSError):
            for entry in os.scandir(directory):
                if entry.name != "bwrap" and not (folder / entry.name).exists():
                    (folder / entry.name).symlink_to(entry.path)
    return str(folder)


async def test_without_a_sandbox_mechanism_run_says_so_once_and_full_access_does_not(
    cli: Cli, fake: FakeProvider, tmp_path: Path, agent_home: Path
) -> None:
    path = _path_without_bwrap(tmp_path / "bin")
    environ = cli.env
    cli.env = lambda: {**environ(), "PATH": path}  # type: ignore[method-assign]
    fake.add({"text": "ok"})
    code, out, err = await cli.run("hi")
    assert code == 0, err
    assert err.count("no command sandbox") == 1 and "bubblewrap (bwrap) is not installed" in err
    (agent_home / "config.toml").write_text('[sandbox]\nmode = "full-access"\n')
    fake.add({"text": "ok"})
    code, out, err = await cli.run("hi")
    assert code == 0 and "no command sandbox" not in err, err


async def test_the_approval_flags_decide_before_the_permission_policy(cli: Cli, fake: FakeProvider) -> None:
    patch = "*** Begin Patch\n*** Add File: made.txt\n+made\n*** End Patch"
    edit = {"tool_calls": [{"id": "call_e", "name": "apply_patch", "arguments": {"patch": patch}}]}
    command = {"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": "touch ran.txt"}}]}
    fake.add(edit, command, {"text": "done"})
    code, out, err = await cli.run("--approval", "auto-edit", "go")  # --permission deny (the default) for the rest
    assert code == 0, err
    assert "agent-tui: approval mode auto-edit: edits in the project run without asking" in err
    assert (cli.workdir / "made.txt").exists() and not (cli.workdir / "ran.txt").exists()
    log = await cli.log(session_of(err))
    assert [e["data"]["action"] for e in log if e["type"] == "session.permission.asked.1"] == ["bash"]

    fake.add(command, {"text": "done"})
    code, out, err = await cli.run("--continue", "--full-auto", "again")
    assert code == 0, err
    assert "agent-tui: approval mode full-auto: nothing is asked (deny rules still apply)" in err
    assert (cli.workdir / "ran.txt").exists()
    log = await cli.log(session_of(err))
    assert [e["data"]["action"] for e in log if e["type"] == "session.permission.asked.1"] == ["bash"]  # no new ask
