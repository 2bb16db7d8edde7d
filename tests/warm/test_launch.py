"""Launches through a real warm process: ``python -m agent_tui run`` as a shell starts it, against
the fake provider; the warm child takes over the caller's cwd, umask, environment and stdio.

The launches use an ``AGENT_TUI_HOME`` (and test tools) the warm process was not started with:
those are read per launch, so the same warm process serves them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui import __version__
from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import UNDER_LOAD_S

from .helpers import Warm, agent, alive, apoll, gone, launch_request, model_flags, poll, raw_launch, start_agent

TEST_TOOLS = "agent_tui.testing.test_tools:register"


def session_of(stderr: str) -> str:
    return next(line.split()[1] for line in stderr.splitlines() if line.startswith("session "))


def no_fallback(home: Path) -> None:
    """The launcher notes in its own ``warm.log`` when it runs a launch in-process; it noted nothing."""
    log = home / "warm.log"
    assert not log.exists(), log.read_text()


async def blocked_run(warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path):  # noqa: ANN201
    """``run block`` launched warm, once its test tool blocks in the child: (launcher, child pid, marks file)."""
    marks = agent_home / "marks.txt"
    fake.add({"tool_calls": [{"id": "c1", "name": "block", "arguments": {}}]})
    env = warm.launch_env(agent_home, AGENT_TUI_TEST_TOOLS=TEST_TOOLS, AGENT_TUI_TEST_MARKS=str(marks))
    launcher = await start_agent(env, "run", *model_flags(fake), "block", cwd=workdir)
    await apoll(lambda: marks.exists() and "pid=" in marks.read_text(), "the block tool to run", UNDER_LOAD_S)
    (child,) = warm.status()["running"]
    return launcher, child, marks


async def test_a_launch_runs_in_the_warm_processs_spare_child(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    fake.add({"text": "The answer is 42.", "chunks": 3})
    before = warm.status()
    assert before is not None and before["spare_pid"]
    mark = len(warm.log())
    ran = await agent(warm.launch_env(agent_home), "run", *model_flags(fake), "what is it?", cwd=workdir)
    assert ran.code == 0, ran.err
    assert ran.out == "The answer is 42.\n"
    after = warm.status()
    assert after["pid"] == before["pid"] and after["launches"] == before["launches"] + 1
    assert after["running"] == [] and after["spare_pid"] not in (None, before["spare_pid"])
    child = before["spare_pid"]
    log = await apoll(
        lambda: (text := warm.lines_after(mark)) and "ended" in text and text, "the child's end in warm.log"
    )
    assert f"launch {after['launches']}: child {child} for run --model openai/fake-model --api-base " in log
    assert "--api-key *** what is it?" in log and "test-key" not in warm.log()  # no secret in the log
    assert f"child {child} ended: {{'exit': 0}}" in log
    no_fallback(agent_home)


async def test_the_launchs_home_holds_its_session_not_the_warm_processs(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    assert agent_home != warm.home
    fake.add({"text": "stored"})
    ran = await agent(warm.launch_env(agent_home), "run", *model_flags(fake), "remember", cwd=workdir)
    assert ran.code == 0, ran.err
    assert (agent_home / "agent-tui.db").exists()
    assert not (warm.home / "agent-tui.db").exists()
    log = await agent(warm.launch_env(agent_home), "log", session_of(ran.err), cwd=workdir)  # in-process
    assert log.code == 0 and '"session.execution.succeeded.1"' in log.out, log.err


async def test_settings_from_the_launchs_environment_are_the_launchs(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    """The model, API base and key given as ``AGENT_TUI_*`` variables the warm process never had."""
    fake.add({"text": "configured by the environment"})
    status = warm.status()
    env = warm.launch_env(
        agent_home, AGENT_TUI_MODEL="openai/env-model", AGENT_TUI_API_BASE=fake.openai_base, AGENT_TUI_API_KEY="env-key"
    )
    ran = await agent(env, "run", "hi", cwd=workdir)
    assert ran.code == 0 and ran.out == "configured by the environment\n", ran.err
    assert warm.status()["launches"] == status["launches"] + 1
    (request,) = fake.accepted
    assert request.body["model"] == "env-model"
    assert {k.lower(): v for k, v in request.headers.items()}["authorization"] == "Bearer env-key"


async def test_the_child_takes_the_callers_cwd_umask_and_environment(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    here = workdir / "somewhere"
    here.mkdir()
    command = 'touch made.txt; pwd > where.txt; printf %s "$WARM_TEST_WORD" > word.txt'
    fake.add({"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": command}}]}, {"text": "made it"})
    status = warm.status()
    env = warm.launch_env(agent_home, WARM_TEST_WORD="pineapple")
    ran = await agent(env, "run", "--permission", "allow", *model_flags(fake), "make it", cwd=here, umask=0o077)
    assert ran.code == 0, ran.err
    assert ran.out.strip() == "made it"
    assert warm.status()["launches"] == status["launches"] + 1
    assert (here / "where.txt").read_text().strip() == str(here)
    assert (here / "made.txt").stat().st_mode & 0o777 == 0o600  # the warm process's umask is 022
    assert (here / "word.txt").read_text() == "pineapple"


async def test_the_child_reads_the_callers_stdin(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    fake.add({"text": "read it"})
    status = warm.status()
    ran = await agent(
        warm.launch_env(agent_home), "run", *model_flags(fake), "-", cwd=workdir, stdin=b"hello from stdin\n"
    )
    assert ran.code == 0, ran.err
    assert ran.out.strip() == "read it"
    assert warm.status()["launches"] == status["launches"] + 1
    sent = fake.accepted[0].body["messages"][-1]["content"]
    assert sent in ("hello from stdin\n", [{"type": "text", "text": "hello from stdin\n"}])


async def test_a_usage_error_exits_2_with_the_usage(warm: Warm, workdir: Path, agent_home: Path) -> None:
    """``run …`` goes to a warm child unparsed (argparse would cost every launch ~6 ms), which
    says what is wrong; what the launcher cannot place is parsed first and costs no launch."""
    status = warm.status()
    ran = await agent(warm.launch_env(agent_home), "run", "--format", "bogus", "hi", cwd=workdir)
    assert ran.code == 2 and ran.out == ""
    assert ran.err.startswith("usage: agent-tui run") and "invalid choice: 'bogus'" in ran.err
    assert warm.status()["launches"] == status["launches"] + 1
    ran = await agent(warm.launch_env(agent_home), "--bogus", cwd=workdir)
    assert ran.code == 2 and ran.out == ""
    assert ran.err.startswith("usage: agent-tui") and "unrecognized arguments: --bogus" in ran.err
    assert warm.status()["launches"] == status["launches"] + 1


def test_a_usage_error_in_the_warm_child_exits_2_with_the_usage_on_the_callers_stderr(
    warm: Warm, workdir: Path, agent_home: Path
) -> None:
    request = launch_request(
        warm, ["agent-tui", "run", "--format", "bogus", "hi"], warm.launch_env(agent_home), workdir
    )
    messages, out, err = raw_launch(warm, request)
    assert [list(m) for m in messages] == [["pid"], ["exit"]] and messages[1]["exit"] == 2, messages
    assert out == ""
    assert err.startswith("usage: agent-tui run") and "invalid choice: 'bogus'" in err


def test_the_child_writes_to_the_callers_stdout(warm: Warm, workdir: Path, agent_home: Path) -> None:
    request = launch_request(warm, ["agent-tui", "--version"], warm.launch_env(agent_home), workdir)
    messages, out, err = raw_launch(warm, request)
    assert messages[-1] == {"exit": 0} and err == ""
    assert out == f"agent-tui {__version__}\n"


async def test_run_without_a_prompt_exits_2_with_its_message(warm: Warm, workdir: Path, agent_home: Path) -> None:
    status = warm.status()
    ran = await agent(warm.launch_env(agent_home), "run", "--model", "openai/fake-model", cwd=workdir)
    assert ran.code == 2 and ran.out == ""
    assert ran.err == "agent-tui: give a prompt, or --session ID / --continue to resume a session\n"
    assert warm.status()["launches"] == status["launches"] + 1
    no_fallback(agent_home)


async def test_a_caller_that_dies_mid_launch_leaves_no_child(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    launcher, child, marks = await blocked_run(warm, fake, workdir, agent_home)
    try:
        assert re.search(rf"pid={child}\b", marks.read_text()), marks.read_text()  # the tool runs in the child
        assert child != launcher.pid and alive(child)
        mark = len(warm.log())
        launcher.kill()
        assert await launcher.wait() == -signal.SIGKILL
        await apoll(lambda: gone(child), f"the orphaned child {child} to end")
        await apoll(lambda: warm.status()["running"] == [], "the warm process to reap it")
        log = warm.lines_after(mark)
        assert f"the caller of child {child} hung up: SIGHUP" in log
        assert f"child {child} ended: {{'exit': 129}}" in log  # interrupted as when its terminal closes
        assert "SIGKILL" not in log
    finally:
        if launcher.returncode is None:
            launcher.kill()
            await launcher.wait()


async def test_a_stopped_child_whose_caller_dies_still_ends_on_the_hang_up(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    """A hang-up sends SIGCONT after SIGHUP, as a terminal's does: a stopped child would not see
    the SIGHUP and was SIGKILLed 10 s later, leaving its tools' process groups behind."""
    launcher, child, marks = await blocked_run(warm, fake, workdir, agent_home)
    try:
        os.kill(child, signal.SIGSTOP)
        mark = len(warm.log())
        launcher.kill()
        await launcher.wait()
        await apoll(lambda: warm.status()["running"] == [], "the warm process to reap the child", timeout=8)
        log = warm.lines_after(mark)
        assert f"child {child} ended: {{'exit': 129}}" in log and "SIGKILL" not in log, log
    finally:
        if launcher.returncode is None:
            launcher.kill()
            await launcher.wait()


def test_the_child_takes_the_callers_time_zone_and_temporary_directory(tmp_path: Path) -> None:
    """Both are read once and kept (the clock's zone, ``tempfile.tempdir``): a child has the caller's,
    not the warm process's."""
    probe = (
        "import sys, time, tempfile\nfrom agent_tui.warm import child\n"
        "before = (time.strftime('%Z'), tempfile.gettempdir())\n"
        "child.take_environment({'TZ': 'NZST-12', 'TMPDIR': sys.argv[1]})\n"
        "print(before, (time.strftime('%Z'), tempfile.gettempdir()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "TZ": "UTC0", "TMPDIR": "/tmp"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"('UTC', '/tmp') ('NZST', '{tmp_path}')"


@pytest.mark.parametrize(
    ("code", "status", "stderr"),
    [(0, 0, ""), (3, 3, ""), (None, 0, ""), (130, 130, ""), ("a message", 1, "a message\n")],
)
def test_a_child_ends_as_python_would_without_freeing_its_heap(code: object, status: int, stderr: str) -> None:
    """``child.end``: other threads finish, ``atexit`` handlers run, output is flushed, the status is
    Python's for that code."""
    probe = (
        "import atexit, sys, threading, time\nfrom agent_tui.warm import child\n"
        "atexit.register(lambda: print('atexit ran'))\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('thread done'))).start()\n"
        "print('buffered', end='')\n"
        f"child.end({code!r})\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (status, "bufferedthread done\natexit ran\n", stderr)


async def test_the_caller_ends_as_its_child_ended(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    launcher, child, marks = await blocked_run(warm, fake, workdir, agent_home)
    os.kill(child, signal.SIGKILL)
    assert await launcher.wait() == -signal.SIGKILL  # killed by the same signal, as a shell would see it
    await apoll(lambda: warm.status()["running"] == [], "the warm process to reap the child")


async def test_signals_sent_to_the_caller_reach_the_child(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    launcher, child, marks = await blocked_run(warm, fake, workdir, agent_home)
    launcher.send_signal(signal.SIGTERM)
    out, err = await launcher.communicate()
    assert launcher.returncode == 143, err.decode()  # the child was interrupted (shutdown) and said so
    assert gone(child)


@pytest.mark.parametrize("who", ["nobody", "the warm process's starter", "the caller"])
async def test_a_fresh_process_and_a_warm_child_handle_the_same_signals(
    who: str, warm: Warm, warms: Callable[..., Warm], fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    """What a process ignores and catches, read from ``/proc``: a warm child looks like a fresh
    process, but for SIGTSTP (it asks its caller to stop instead). The caller's ignored signals are
    the child's; those of the launcher that started the warm process are not (``nohup agent-tui
    run ... &`` may have started it)."""
    ignoring = (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM, signal.SIGTSTP)
    if who == "the warm process's starter":
        warm = warms()
        warm.start(ignoring=ignoring)
    masks = {}
    for mode in ("in-process", "warm"):
        marks = agent_home / f"marks-{mode}.txt"
        fake.add({"tool_calls": [{"id": f"c-{mode}", "name": "block", "arguments": {}}]})
        env = warm.launch_env(agent_home, AGENT_TUI_TEST_TOOLS=TEST_TOOLS, AGENT_TUI_TEST_MARKS=str(marks))
        if mode == "in-process":
            env["AGENT_TUI_NO_WARM"] = "1"
        launcher = await start_agent(
            env, "run", *model_flags(fake), "block", cwd=workdir, ignoring=ignoring if who == "the caller" else ()
        )
        await apoll(lambda: marks.exists() and "pid=" in marks.read_text(), "the block tool to run", UNDER_LOAD_S)  # noqa: B023
        pid = launcher.pid if mode == "in-process" else warm.status()["running"][0]
        masks[mode] = signal_masks(pid)
        if who == "the caller":  # what the caller ignores stays ignored: the run goes on
            os.kill(pid, signal.SIGKILL)
            _, err = await launcher.communicate()
            assert launcher.returncode == -signal.SIGKILL, err.decode()
        else:
            os.kill(pid, signal.SIGINT)
            _, err = await launcher.communicate()
            assert launcher.returncode == 130, err.decode()
    quit_ = 1 << (signal.SIGQUIT - 1)
    assert bool(masks["in-process"]["SigIgn"] & quit_) is (who == "the caller")
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):  # run catches them, unless the caller ignores them
        assert bool(masks["in-process"]["SigIgn"] & 1 << (signum - 1)) is (who == "the caller")
        assert bool(masks["in-process"]["SigCgt"] & 1 << (signum - 1)) is (who != "the caller")
    tstp = 1 << (signal.SIGTSTP - 1) if who != "the caller" else 0  # an ignored SIGTSTP stays ignored
    assert masks["warm"]["SigIgn"] == masks["in-process"]["SigIgn"]
    assert masks["warm"]["SigCgt"] == masks["in-process"]["SigCgt"] | tstp
    assert masks["warm"]["SigBlk"] == masks["in-process"]["SigBlk"]


def signal_masks(pid: int) -> dict[str, int]:
    """The process's ignored and caught signals, and the signals its main thread blocks. Blocking
    (nearly) all signals is a moment's state, not the process's: glibc does it around creating a
    thread and while a ``vfork``ed child (a ``git`` the agent runs) has not yet exec'd; the mask is
    read again until it is past such a moment."""

    def read() -> dict[str, int]:
        status = Path(f"/proc/{pid}/status").read_text()
        fields = dict(line.split(":\t") for line in status.splitlines() if ":\t" in line)
        return {name: int(fields[name], 16) for name in ("SigIgn", "SigCgt", "SigBlk")}

    return poll(lambda: (masks := read())["SigBlk"].bit_count() < 32 and masks, "a blocked mask past a moment's")


async def test_the_child_takes_the_callers_limits_and_priority(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    """``ulimit`` and ``nice`` of the shell reach the agent and the commands it runs, as they would
    a fresh process (the warm process's own are those of whoever started it)."""
    import asyncio
    import resource

    command = "ulimit -n > nofile.txt; ulimit -Hn > nofile_hard.txt; nice > nice.txt"
    fake.add({"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": command}}]}, {"text": "measured"})
    status = warm.status()

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 512))
        os.nice(3)

    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_tui",
        "run",
        "--permission",
        "allow",
        *model_flags(fake),
        "measure",
        cwd=workdir,
        env=warm.launch_env(agent_home),
        preexec_fn=limited,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert warm.status()["launches"] == status["launches"] + 1
    assert (workdir / "nofile.txt").read_text().split() == ["256"]
    assert (workdir / "nofile_hard.txt").read_text().split() == ["512"]
    assert int((workdir / "nice.txt").read_text()) == os.getpriority(os.PRIO_PROCESS, 0) + 3
