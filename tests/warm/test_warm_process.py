"""The warm process itself: what it refuses, who may reach it, what happens when it is gone, and
how it ends (``warm stop``, SIGTERM, idle). Each test that ends a warm process starts its own."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import select
import signal
import socket
import stat
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui import __version__
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.warm import place, wire

from .helpers import PYTHON, Warm, agent, alive, gone, launch_request, model_flags, poll, raw_launch, send_raw

# A warm start may take up to helpers.START_TIMEOUT_S (150 s) on a loaded machine, and some tests
# then wait as long again: pytest's default 120 s cut one short (three suites at once, load 5).
pytestmark = pytest.mark.timeout(400)

NOBODY = 65534


def frame(body: bytes, length: int | None = None) -> bytes:
    return struct.pack(">I", len(body) if length is None else length) + body


def warm_cmd(warm: Warm, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "agent_tui", "warm", *args], env=warm.env, capture_output=True, text=True, timeout=60
    )


# -- refusals ------------------------------------------------------------------------------------


def _launch_body(warm: Warm, **over: Any) -> bytes:
    request = launch_request(warm, ["agent-tui", "run", "hi"], warm.launch_env(), Path("/"))
    return json.dumps({**request, **over}).encode()


MALFORMED: dict[str, tuple[Callable[[Warm], bytes], str]] = {
    "garbage": (lambda w: b"garbage bytes, not a request\n", "a request of 1734439522 bytes"),
    "too long": (lambda w: frame(b"{}", wire.MAX_REQUEST + 1), "a request of 1048577 bytes"),
    "not json": (lambda w: frame(b"{'op': 'status'}"), "unreadable"),
    "no op": (lambda w: frame(b'{"argv": ["agent-tui"]}'), "no op"),
    "unknown op": (lambda w: frame(b'{"op": "dance"}'), "unknown op 'dance'"),
    "not a launch": (lambda w: frame(b'{"op": "launch", "argv": "x"}'), "not a launch"),
    "empty argv": (lambda w: frame(_launch_body(w, argv=[])), "not a launch: empty argv"),
    "another key": (lambda w: frame(_launch_body(w, key="0" * 16)), "a launch for another key"),
    # each of these three ended the warm process before (OverflowError, RecursionError)
    "infinite umask": (lambda w: frame(_launch_body(w).replace(b'"umask": 18', b'"umask": 1e400')), "not a launch"),
    "NaN": (lambda w: frame(_launch_body(w).replace(b'"umask": 18', b'"umask": NaN')), "unreadable"),
    "too deep": (lambda w: frame(b'{"op": "status", "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"), "unreadable"),
}


def _same_fds(warm: Warm, pid: int, before: set[str]) -> None:
    """The warm process has the pipes open it had before: none of those that came with a request."""
    now = warm.fds(pid)
    assert now == before, (sorted(now - before), sorted(before - now))


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_request_is_refused_and_logged(warm: Warm, case: str) -> None:
    """Refused with a reason, named in ``warm.log``; the descriptors that came with it are closed
    (the warm process has the same ones open after it as before)."""
    make, reason = MALFORMED[case]
    before = warm.status()
    pid = before["pid"]
    fds_before = warm.fds(pid)
    mark = len(warm.log())
    r, w = os.pipe()
    try:
        answer = send_raw(warm.socket, make(warm), fds=[r, w, r])
    finally:
        os.close(r)
        os.close(w)
    assert answer is not None and set(answer) == {"refused"}, answer
    assert reason in answer["refused"]
    poll(lambda: f"WARNING refused a request: {reason}" in warm.lines_after(mark), f"{reason!r} in warm.log")
    after = warm.status()
    assert after["pid"] == pid and after["spare_pid"] == before["spare_pid"] and after["launches"] == before["launches"]
    _same_fds(warm, pid, fds_before)


def test_a_launch_with_other_than_three_descriptors_is_refused(warm: Warm) -> None:
    pid = warm.status()["pid"]
    fds_before = warm.fds(pid)
    for count in (0, 1, 2):
        r, w = os.pipe()
        try:
            answer = send_raw(warm.socket, frame(_launch_body(warm)), fds=[r, w][:count])
        finally:
            os.close(r)
            os.close(w)
        assert answer == {"refused": f"a launch with {count} descriptors, not 3"}
    pipes = [os.pipe() for _ in range(2)]
    try:
        answer = send_raw(warm.socket, frame(_launch_body(warm)), fds=[fd for pair in pipes for fd in pair])
    finally:
        for pair in pipes:
            os.close(pair[0])
            os.close(pair[1])
    assert answer == {"refused": "more than 3 descriptors"}
    _same_fds(warm, pid, fds_before)


async def test_after_refusals_the_warm_process_still_serves_launches(
    warm: Warm, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    for make, _ in MALFORMED.values():
        assert "refused" in send_raw(warm.socket, make(warm))
    before = warm.status()
    fake.add({"text": "still here"})
    ran = await agent(warm.launch_env(agent_home), "run", *model_flags(fake), "hello?", cwd=workdir)
    assert ran.code == 0 and ran.out == "still here\n", ran.err
    after = warm.status()
    assert after["pid"] == before["pid"] and after["launches"] == before["launches"] + 1
    assert not (agent_home / "warm.log").exists()  # the launcher did not run it in-process


def test_a_connection_that_sends_nothing_is_dropped_and_serving_goes_on(warm: Warm) -> None:
    mark = len(warm.log())
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.settimeout(30)
        silent.connect(str(warm.socket))
        assert wire.Replies(silent).next() == {"refused": "no request within 5 s"}
    assert "refused a request: no request within 5 s" in warm.log()[mark:]
    assert warm.status() is not None


def test_a_request_that_trickles_in_is_dropped_at_the_deadline_and_serving_goes_on(warm: Warm) -> None:
    """A byte every second never completes the frame: refused 5 s after its first bytes, not 5 s
    after its last (which let such a caller hold the warm process, and every launch, for good)."""
    mark = len(warm.log())
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as slow:
        slow.connect(str(warm.socket))
        slow.sendall(struct.pack(">I", 100) + b"{")  # a frame of 100 bytes, of which one came
        slow.setblocking(False)
        for _ in range(60):  # one byte a second for a minute, unless refused first
            try:
                slow.send(b" ")
            except BlockingIOError:
                pass
            except OSError:
                break  # refused and closed
            ready, _, _ = select.select([slow], [], [], 1.0)
            if ready:
                break
        else:
            raise AssertionError("still reading a trickling request after a minute")
    assert "refused a request: unreadable: the request was not complete in time" in warm.log()[mark:]
    assert warm.status() is not None


def test_a_launch_into_a_missing_directory_fails_and_serving_goes_on(warm: Warm, tmp_path: Path) -> None:
    before = warm.status()
    request = launch_request(warm, ["agent-tui", "--version"], warm.launch_env(), tmp_path / "gone")
    messages, out, err = raw_launch(warm, request)
    assert messages[1:] == [{"exit": 1}], messages
    assert out == ""
    assert f"FileNotFoundError: [Errno 2] No such file or directory: '{tmp_path / 'gone'}'" in err  # the caller's
    after = warm.status()
    assert after["pid"] == before["pid"] and after["running"] == []


def test_an_odd_but_readable_launch_does_not_end_the_warm_process(warm: Warm, workdir: Path) -> None:
    """A launch is read as :class:`Launch` reads it (its ``argv`` an object's keys here); the
    warm process goes on serving (it once logged the raw ``argv`` and died of a TypeError)."""
    before = warm.status()
    request = launch_request(warm, {"agent-tui": 0, "--version": 1}, warm.launch_env(), workdir)  # type: ignore[arg-type]
    messages, out, _ = raw_launch(warm, request)
    assert messages[1:] == [{"exit": 0}] and out == f"agent-tui {__version__}\n", messages
    after = warm.status()
    assert after is not None and after["pid"] == before["pid"] and after["launches"] == before["launches"] + 1


# -- who may connect -----------------------------------------------------------------------------


def _as_nobody(path: Path) -> dict[str, Any]:
    """A status request from another user (a forked child that became uid 65534)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        result: dict[str, Any] = {}
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(10)
            try:
                sock.connect(str(path))
            except OSError as error:
                result = {"errno": error.errno}
            else:
                try:
                    wire.send_request(sock, {"op": "status"})
                except BrokenPipeError:  # refused and closed before it read the request: the refusal is still there
                    pass
                reply = wire.Replies(sock).next()
                result = {"reply": reply} if reply is not None else {"eof": True}
        except BaseException as error:  # noqa: BLE001 - reported to the test, never raised in a fork
            result = {"error": repr(error)}
        finally:
            os.write(w, json.dumps({**result, "pid": os.getpid()}).encode())
            os._exit(0)
    os.close(w)
    try:
        data = b""
        while chunk := os.read(r, 4096):
            data += chunk
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    return json.loads(data)


def test_only_this_user_may_enter_the_directory_and_the_socket(warm: Warm) -> None:
    assert stat.S_IMODE(warm.directory.stat().st_mode) == 0o700
    info = warm.socket.lstat()
    assert stat.S_ISSOCK(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert warm.directory.stat().st_uid == info.st_uid == os.getuid()
    lock = warm.socket.with_suffix(".lock")
    assert lock.exists() and lock.parent == warm.directory


def test_another_user_is_kept_out_by_the_permissions_then_by_the_peer_check(warm: Warm) -> None:
    if os.getuid() != 0:  # no other user to become: what keeps one out is the modes above
        assert stat.S_IMODE(warm.directory.stat().st_mode) == 0o700
        return
    assert _as_nobody(warm.socket) | {"pid": 0} == {"errno": errno.EACCES, "pid": 0}  # the directory, 0700
    mark = len(warm.log())
    try:
        warm.directory.chmod(0o711)
        assert _as_nobody(warm.socket) | {"pid": 0} == {"errno": errno.EACCES, "pid": 0}  # the socket, 0600
        warm.socket.chmod(0o666)
        result = _as_nobody(warm.socket)
    finally:
        warm.directory.chmod(0o700)
        with contextlib.suppress(FileNotFoundError):
            warm.socket.chmod(0o600)
    refusal = f"process {result['pid']} of uid {NOBODY} is not this user"
    assert result in ({"reply": {"refused": refusal}, "pid": result["pid"]}, {"eof": True, "pid": result["pid"]})
    poll(lambda: f"refused a request: {refusal}" in warm.lines_after(mark), "the refusal in warm.log")
    assert warm.status() is not None


# -- status, stop, SIGTERM, idle -----------------------------------------------------------------


def test_warm_status_prints_pid_version_idle_time_and_rss(warm: Warm) -> None:
    answer = warm.status()
    result = warm_cmd(warm, "status")
    assert result.returncode == 0, result.stderr
    line = re.fullmatch(
        r"pid (\d+)  agent-tui (\S+)  idle (\d+s|\d+m\d\ds) \(ends after 10 min\)  RSS (\d+) MiB, "
        r"spare child (\d+) \((\d+) MiB\)  launches (\d+)  running 0\n",
        result.stdout,
    )
    assert line is not None, result.stdout
    assert int(line[1]) == answer["pid"] and line[2] == __version__
    assert int(line[4]) > 50 and int(line[6]) > 0  # LiteLLM and Textual are in it
    assert int(line[5]) == answer["spare_pid"] and alive(answer["spare_pid"])
    as_json = json.loads(warm_cmd(warm, "status", "--json").stdout)
    assert as_json["pid"] == answer["pid"] and as_json["key"] == warm.key and as_json["python"] == PYTHON
    assert as_json["idle_minutes"] == 10 and as_json["stopping"] is False
    assert as_json["rehearsed"] is True  # the app ran once headless: launches start with its CSS parsed


def test_warm_status_without_a_warm_process(warms: Callable[..., Warm]) -> None:
    result = warm_cmd(warms(), "status")
    assert (result.returncode, result.stdout) == (0, "no warm process\n")


def _serving(warm: Warm) -> tuple[int, int]:
    answer = warm.start()
    assert alive(answer["pid"]) and alive(answer["spare_pid"])
    return answer["pid"], answer["spare_pid"]


def _ended(warm: Warm, pid: int, spare: int, why: str) -> None:
    poll(lambda: gone(pid) and gone(spare), f"warm process {pid} and its spare {spare} to end")
    assert not warm.socket.exists()
    assert warm_cmd(warm, "status").stdout == "no warm process\n"
    log = warm.log()
    assert why in log and f"warm[{pid}] INFO stopped after 0 launches" in log


def test_warm_stop_ends_it(warms: Callable[..., Warm]) -> None:
    warm = warms()
    pid, spare = _serving(warm)
    result = warm_cmd(warm, "stop")
    assert (result.returncode, result.stdout) == (0, f"stopped {pid}\n")
    _ended(warm, pid, spare, f"warm[{pid}] INFO asked to stop")
    assert warm_cmd(warm, "stop").stdout == "no warm process\n"


def test_sigterm_ends_it(warms: Callable[..., Warm]) -> None:
    warm = warms()
    pid, spare = _serving(warm)
    os.kill(pid, signal.SIGTERM)
    _ended(warm, pid, spare, f"warm[{pid}] INFO signal received: stopping")


def test_it_ends_when_idle(warms: Callable[..., Warm]) -> None:
    warm = warms(AGENT_TUI_WARM__IDLE_MINUTES="0.05")  # 3 s
    result = warm_cmd(warm, "start")
    assert result.returncode == 0, result.stderr
    pid = int(re.fullmatch(r"warm process (\d+) serving .*\n", result.stdout)[1])
    warm.pids.add(pid)
    poll(lambda: gone(pid), f"warm process {pid} to end by itself", timeout=60)
    assert not warm.socket.exists()
    assert f"warm[{pid}] INFO idle for 0.05 minutes: stopping" in warm.log()


def test_warm_start_refuses_when_warm_start_is_off(warms: Callable[..., Warm]) -> None:
    off = warms(AGENT_TUI_NO_WARM="1")
    result = warm_cmd(off, "start")
    assert (result.returncode, result.stderr) == (1, "agent-tui: warm start is off (AGENT_TUI_NO_WARM is set)\n")
    zero = warms(AGENT_TUI_WARM__IDLE_MINUTES="0")
    result = warm_cmd(zero, "start")
    assert (result.returncode, result.stderr) == (1, "agent-tui: warm start is off ([warm] idle_minutes = 0)\n")
    assert not list(zero.directory.glob("warm-*.sock"))


# -- no warm process to reach: the launch runs in-process ----------------------------------------


def _stale_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(str(path))
    assert stat.S_ISSOCK(path.lstat().st_mode)


async def test_a_stale_socket_means_an_in_process_launch_and_a_new_warm_process(
    warms: Callable[..., Warm], fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    warm = warms()
    assert place.runtime_dir(warm.env) == warm.directory
    _stale_socket(warm.socket)
    fake.add({"text": "ran in-process"})
    ran = await agent(warm.launch_env(agent_home), "run", *model_flags(fake), "hi", cwd=workdir)
    assert ran.code == 0 and ran.out == "ran in-process\n", ran.err
    assert re.fullmatch(
        r"(agent-tui: warning: the --api-key value .*\n)?session \S+\n", ran.err
    )  # not a word about warm start
    noted = (agent_home / "warm.log").read_text()
    assert f"no warm process at {warm.socket} (Connection refused): starting one; this launch runs in-process" in noted
    answer = poll(warm.status, "the warm process that launch started", timeout=150)  # it replaced the stale socket
    assert answer["launches"] == 0 and stat.S_ISSOCK(warm.socket.lstat().st_mode)


async def test_a_dead_warm_process_means_an_in_process_launch_and_warm_start_makes_a_new_one(
    warms: Callable[..., Warm], fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    warm = warms()
    pid, spare = _serving(warm)
    os.kill(pid, signal.SIGKILL)
    poll(lambda: gone(pid) and gone(spare), "the killed warm process and its spare to end")
    assert warm.socket.exists()  # nobody removed it
    fake.add({"text": "ran anyway"})
    ran = await agent(warm.launch_env(agent_home), "run", *model_flags(fake), "hi", cwd=workdir)
    assert ran.code == 0 and ran.out == "ran anyway\n", ran.err
    assert re.fullmatch(r"(agent-tui: warning: the --api-key value .*\n)?session \S+\n", ran.err)
    assert "(Connection refused): starting one" in (agent_home / "warm.log").read_text()
    answer = warm.start()
    assert answer["pid"] != pid and alive(answer["pid"])


def test_a_caller_in_another_namespace_is_refused(warm: Warm) -> None:
    """Its child would run outside the caller's sandbox or container: the launcher then runs the
    launch in-process."""
    flags = ["-n"] if os.getuid() == 0 else ["-Urn"]
    poll(warm.status, "the warm process to answer")
    probe = f"from agent_tui.warm import client\nprint(client.ask({str(warm.socket)!r}, 'status', timeout=30))"
    out = subprocess.run(["unshare", *flags, PYTHON, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "'refused': 'process " in out.stdout and "is in another net namespace" in out.stdout, out.stdout
    assert warm.status() is not None
