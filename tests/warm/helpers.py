"""Real warm processes for tests: started with ``agent-tui warm start`` in a runtime directory of
their own (so a test that stops or kills one touches no other test's), and stopped at the end.

Waits poll for what they wait for, with a deadline; nothing here sleeps a fixed time."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from agent_tui.warm import client, place, wire

PYTHON = sys.executable
START_TIMEOUT_S = 150.0
T = TypeVar("T")


PAUSE_S = 0.02  # between two checks of a wait's condition


class _Wait(Generic[T]):
    """One wait for ``condition()`` to be truthy, checked by :meth:`done` (the sync and the async
    wait differ only in how they pause between checks)."""

    def __init__(self, condition: Callable[[], T], what: str, timeout: float) -> None:
        self.condition, self.what, self.timeout = condition, what, timeout
        self.deadline = time.monotonic() + timeout
        self.value: T | None = None

    def done(self) -> bool:
        """Whether ``condition()`` is truthy now (its value kept in :attr:`value`); fails once it
        is not after ``timeout`` seconds."""
        self.value = self.condition()
        if self.value:
            return True
        if time.monotonic() > self.deadline:
            raise AssertionError(f"timed out after {self.timeout:.0f} s waiting for {self.what}")
        return False


def poll(condition: Callable[[], T], what: str, timeout: float = 30.0) -> T:
    """``condition()`` once it is truthy; fails after ``timeout`` seconds."""
    wait = _Wait(condition, what, timeout)
    while not wait.done():
        time.sleep(PAUSE_S)
    return wait.value  # type: ignore[return-value]


async def apoll(condition: Callable[[], T], what: str, timeout: float = 30.0) -> T:
    """:func:`poll` for a coroutine: the event loop runs between checks."""
    wait = _Wait(condition, what, timeout)
    while not wait.done():
        await asyncio.sleep(PAUSE_S)
    return wait.value  # type: ignore[return-value]


def state(pid: int) -> str | None:
    """The process's state letter (R, S, T, Z, ...); None when there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return None


def alive(pid: int) -> bool:
    """Running (a zombie of an exited process is not: the init that reaps it may be slow)."""
    return state(pid) not in (None, "Z", "X")


def gone(pid: int) -> bool:
    return not alive(pid)


def clean_environ(**extra: str) -> dict[str, str]:
    """The test process's environment without the test's ``AGENT_TUI_*`` (what a user's shell has)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_TUI_") and k != "PYTEST_CURRENT_TEST"}
    env["LITELLM_OFFLINE_MODE"] = "true"
    env.update(extra)
    return env


class Warm:
    """One warm process: its runtime directory, the home its ``warm.log`` is in, and the
    environment it was started with (every launch meant for it uses that environment, with only
    :data:`place.READ_PER_LAUNCH` variables changed)."""

    def __init__(self, base: Path, *, public: bool = False, **env: str) -> None:
        """``public``: the runtime directory's parents may be entered by other users (the
        private ``agent-tui`` directory in it is all that keeps them out)."""
        self._made: Path | None = None
        if public:
            base = self._made = Path(tempfile.mkdtemp(prefix="agent-tui-warm-test-", dir="/tmp"))
            base.chmod(0o711)
        self.base = base
        self.runtime = base / "run"
        self.runtime.mkdir(mode=0o711 if public else 0o700, exist_ok=True)
        self.home = base / "warm-home"
        self.home.mkdir(exist_ok=True)
        self.env = clean_environ(XDG_RUNTIME_DIR=str(self.runtime), AGENT_TUI_HOME=str(self.home), **env)
        self.pids: set[int] = set()  # every warm process and child seen: all must be gone at the end

    @property
    def key(self) -> str:
        """This environment's key now (agent-tui's code is in it: an edit makes a new key)."""
        return place.launch_key(self.env)

    @property
    def socket(self) -> Path:
        return self.directory / f"warm-{self.key}.sock"  # as place.socket_path, without its checks

    @property
    def directory(self) -> Path:
        return self.runtime / "agent-tui"

    def start(self, ignoring: tuple[int, ...] = ()) -> dict[str, Any]:
        """``agent-tui warm start``: the warm process for this environment, started if need be; its
        status. ``ignoring``: signals ``warm start`` (and so the warm process) starts with ignored,
        as ``nohup`` or a shell's background job would."""

        def ignore() -> None:
            for signum in ignoring:
                signal.signal(signum, signal.SIG_IGN)

        result = subprocess.run(
            [PYTHON, "-m", "agent_tui", "warm", "start"],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_S,
            preexec_fn=ignore if ignoring else None,
        )
        assert result.returncode == 0, result.stdout + result.stderr + self.log()
        answer = self.status()
        assert answer is not None, result.stdout + self.log()
        assert result.stdout.strip() == f"warm process {answer['pid']} serving {self.socket}"
        return answer

    def status(self) -> dict[str, Any] | None:
        answer = client.ask(str(self.socket), "status")
        if answer is not None:
            self.pids.update([answer["pid"], *answer["running"]])
            if answer.get("spare_pid"):
                self.pids.add(answer["spare_pid"])
        return answer

    def launch_env(self, home: Path | None = None, **extra: str) -> dict[str, str]:
        """The environment of a launch this warm process serves: another ``AGENT_TUI_HOME`` and the
        test tools, all read per launch."""
        env = {**self.env, "AGENT_TUI_HOME": str(home or self.home), **extra}
        assert place.launch_key(env) == self.key, "a launch variable changed the key"
        return env

    def log(self) -> str:
        """The warm process's ``warm.log`` (in the home it was started with)."""
        path = self.home / "warm.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def lines_after(self, mark: int) -> str:
        return self.log()[mark:]

    def fds(self, pid: int) -> set[str]:
        """The process's descriptors of pipes, with what they point at (not its sockets, which come
        and go with each connection, nor the directories it reads every few seconds)."""
        out = set()
        for name in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{name}")
                if target.startswith("pipe:"):
                    out.add(f"{name}->{target}")
        return out

    def finish(self) -> None:
        """Stop every warm process of this runtime directory, and make sure all are gone (killing,
        by pid, only processes that are still this directory's warm processes or their children)."""
        with contextlib.suppress(place.NoPlace, OSError):
            for path in client.server_sockets({"XDG_RUNTIME_DIR": str(self.runtime)}):
                answer = client.ask(path, "stop")
                if answer is not None:
                    self.pids.add(answer["pid"])
        ours = {p for p in self.pids if _runs_here(p, self.runtime)} | _started_here(self.runtime)
        deadline = time.monotonic() + 20
        while any(alive(p) for p in ours) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [p for p in ours if alive(p) and _runs_here(p, self.runtime)]
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self._made is not None:
            shutil.rmtree(self._made, ignore_errors=True)
        assert not left, f"still running after a stop: {left}"


def _runs_here(pid: int, runtime: Path) -> bool:
    """``pid`` runs ``agent_tui.warm`` (a warm process, or a child it forked) for this runtime directory."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"agent_tui.warm" in cmdline and f"XDG_RUNTIME_DIR={runtime}".encode() in environ


def _started_here(runtime: Path) -> set[int]:
    """This directory's warm processes and their children, by ``/proc`` (one a test's launch
    started in the background may not be listening yet)."""
    return {int(entry) for entry in os.listdir("/proc") if entry.isdigit() and _runs_here(int(entry), runtime)}


# -- launches ------------------------------------------------------------------------------------


@dataclass
class Ran:
    code: int
    out: str
    err: str


def model_flags(fake: Any) -> list[str]:
    return ["--model", "openai/fake-model", "--api-base", fake.openai_base, "--api-key", "test-key"]


async def start_agent(
    env: Mapping[str, str], *args: str, cwd: Path, umask: int = -1, ignoring: tuple[int, ...] = ()
) -> asyncio.subprocess.Process:
    """``python -m agent_tui ARGS`` as a shell would start it (the launcher, warm or not), with
    ``ignoring`` ignored as ``nohup`` or a background job would have them."""

    def ignore() -> None:
        for signum in ignoring:
            signal.signal(signum, signal.SIG_IGN)

    proc = await asyncio.create_subprocess_exec(
        PYTHON,
        "-m",
        "agent_tui",
        *args,
        cwd=cwd,
        env=dict(env),
        umask=umask,
        preexec_fn=ignore if ignoring else None,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    STARTED.append(proc)
    return proc


STARTED: list[asyncio.subprocess.Process] = []
"""The test's launches: what it leaves running is killed after it (``conftest.kill_leftover_launches``)."""


async def kill_leftovers() -> None:
    while STARTED:
        proc = STARTED.pop()
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


async def agent(
    env: Mapping[str, str], *args: str, cwd: Path, stdin: bytes = b"", umask: int = -1, timeout: float = 60
) -> Ran:
    proc = await start_agent(env, *args, cwd=cwd, umask=umask)
    out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
    assert proc.returncode is not None
    return Ran(proc.returncode, out.decode(), err.decode())


def launch_request(warm: Warm, argv: list[str], env: Mapping[str, str], cwd: Path, **over: Any) -> dict[str, Any]:
    return {
        "op": "launch",
        "key": warm.key,
        "argv": argv,
        "cwd": str(cwd),
        "env": dict(env),
        "umask": 0o022,
        "path0": None,
        "ignored": [],
        **over,
    }


def raw_launch(
    warm: Warm, request: dict[str, Any], stdin: bytes = b"", timeout: float = 60
) -> tuple[list[dict], str, str]:
    """A launch sent on the socket by hand, stdio to files: the replies, then what it wrote."""
    with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        inp.write(stdin)
        inp.seek(0)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(str(warm.socket))
            wire.send_request(sock, request, [inp.fileno(), out.fileno(), err.fileno()])
            replies, messages = wire.Replies(sock), []
            while (message := replies.next()) is not None:
                messages.append(message)
                if "pid" in message:
                    warm.pids.add(message["pid"])
                if {"exit", "signal", "refused"} & set(message):
                    break
        finally:
            sock.close()
        out.seek(0)
        err.seek(0)
        return messages, out.read().decode(errors="replace"), err.read().decode(errors="replace")


def send_raw(path: Path, data: bytes, fds: list[int] = (), timeout: float = 10) -> dict | None:  # type: ignore[assignment]
    """Bytes (not a request, perhaps) on a warm socket; the answer, or None for none."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
        if fds:
            socket.send_fds(sock, [data], list(fds))
        else:
            sock.sendall(data)
        return wire.Replies(sock).next()
    finally:
        sock.close()
