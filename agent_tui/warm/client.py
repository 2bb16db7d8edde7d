"""The launcher's side of warm start: hand this launch to a warm process, or say it cannot.

:func:`launch` returns the launch's exit code when a warm process ran it, or
None when this process must run it itself (as it always did): warm start off,
no warm process yet (one is started in the background for next time), a stale
socket, a refusal or any error before the child began. Stdlib only; it runs
before anything else on every launch.

While the child runs, this process stays what the shell started: it is in the
terminal's foreground process group, forwards the signals a terminal or a user
sends it, stops itself when the child asks (Ctrl+Z) and exits as the child did.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Callable, Mapping

from agent_tui.warm import place, wire

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGWINCH, signal.SIGCONT, signal.SIGTSTP)
_IGNORABLE = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGTSTP, signal.SIGPIPE)
FIRST_REPLY_S = 30.0
"""How long the launcher waits for the child's pid: the warm process answers in milliseconds; one
that does not (stopped, wedged) leaves the launch to this process instead of hanging it."""


def launch(argv: list[str], environ: Mapping[str, str] | None = None, tui: bool = True) -> int | None:
    """Run ``argv`` in a warm child; its exit code, or None to run it in this process. ``tui``: the
    launch takes the terminal (job control keeps it stopped in the background), not ``run``/``serve``."""
    environ = os.environ if environ is None else environ
    if place.switched_off(environ):
        return None
    try:
        key = place.launch_key(environ)
        path = place.socket_path(key, environ)
    except (place.NoPlace, OSError) as error:
        _note(f"no warm start: {error}")
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError as error:
        sock.close()
        if wanted(environ):
            _note(f"no warm process at {path} ({error.strerror}): starting one; this launch runs in-process")
            start(key)
        return None
    try:
        return _launch(sock, argv, key, environ, tui)
    finally:
        sock.close()


def _launch(sock: socket.socket, argv: list[str], key: str, environ: Mapping[str, str], tui: bool) -> int | None:
    try:
        cwd = os.getcwd()
    except OSError as error:  # the directory is gone: in-process, the launch says so itself
        _note(f"no working directory ({error.strerror}): in-process")
        return None
    if tui and _in_the_background():
        _note("started in the background of its terminal: in-process, where job control stops it")
        return None
    ignored = [int(s) for s in _IGNORABLE if signal.getsignal(s) is signal.SIG_IGN]
    umask = os.umask(0)
    os.umask(umask)
    request = {
        "op": "launch",
        "key": key,
        "argv": list(argv),
        "cwd": cwd,
        "env": dict(environ),
        "umask": umask,
        "path0": None if sys.flags.safe_path or not sys.path else sys.path[0],
        "ignored": ignored,
        "executable": sys.executable,
        "limits": place.limits(),
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
    }
    replies = wire.Replies(sock)
    suspended = False
    relay = Relay(tui)  # from before the request: a signal sent while the child starts is not lost
    try:
        try:
            _send(sock, request, [0, 1, 2])
            sock.settimeout(FIRST_REPLY_S)
            first = replies.next()
            # The child can ask to stop before the warm process has sent its pid: both write to this
            # socket, the child as soon as it has the launch (a stop forwarded while it started).
            while first is not None and first.get("suspend"):
                suspended, first = True, replies.next()
            sock.settimeout(None)
        except OSError as error:
            _note(f"the warm process did not take the launch: {error}")
            first = None
        else:
            if first is None or not isinstance(first.get("pid"), int):
                _note(f"the warm process refused the launch: {first}")
                first = None
    except BaseException:
        relay.give_back()
        raise
    if first is None:
        relay.give_back()
        return None
    relay.deliver_to(first["pid"])
    if suspended:
        _stop_with(relay.pid, relay.forward)
    return _follow(replies, relay)


def _send(sock: socket.socket, request: dict, fds: list[int] | None = None) -> None:
    """A request; a broken pipe is not an error here: the warm process refuses some callers (uid,
    group, namespace) before it reads, and its refusal is still there to read."""
    try:
        wire.send_request(sock, request, fds or [])
    except BrokenPipeError:
        pass


def _in_the_background() -> bool:
    """Launched as a background job (``agent-tui &``): the kernel stops such a job when it takes
    the terminal, but a warm child has no terminal of its own and would draw over the shell."""
    for fd in (0, 1, 2):
        try:
            return os.tcgetpgrp(fd) != os.getpgrp()
        except OSError:  # not a terminal
            continue
    return False


class Relay:
    """The launcher's handlers for the signals a terminal or a user sends it: held until the
    child's pid is known (a Ctrl+C while the warm process forks it is not lost, nor does it kill
    the launcher and leave the child to a hang-up), then forwarded to the child.

    Signals the caller ignores stay ignored here and are not forwarded: the child ignores them too."""

    def __init__(self, tui: bool) -> None:
        self._tui = tui
        self._pid: int | None = None
        self._pidfd: int | None = None
        self._held: list[int] = []
        self._before = {signum: signal.getsignal(signum) for signum in FORWARDED}
        for signum, before in self._before.items():
            if before is not signal.SIG_IGN:
                signal.signal(signum, self.forward)

    def forward(self, signum: int, frame: object = None) -> None:
        if self._pid is None:
            self._held.append(signum)
            return
        if signum == signal.SIGCONT and self._tui and _in_the_background():
            # ``bg``: in-process, the app would take the terminal and job control would stop it again
            # (and ``fg`` then sends SIGCONT, which a running job would not get): so stop again here
            os.kill(os.getpid(), signal.SIGSTOP)
            return
        try:
            if self._pidfd is not None:  # never a process that reused the pid of an ended child
                signal.pidfd_send_signal(self._pidfd, signum)
            else:
                os.kill(self._pid, signum)
        except ProcessLookupError:
            pass

    def deliver_to(self, pid: int) -> None:
        """The child runs: what was held goes to it, in order, and so does every signal from now on."""
        try:
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):  # an older kernel, or the child already ended
            self._pidfd = None
        self._pid = pid
        while self._held:
            self.forward(self._held.pop(0))

    def give_back(self) -> None:
        """No child: this process runs the launch, with its own handlers back; a signal held
        meanwhile is raised again, so it lands as it would have without the attempt."""
        for signum, before in self._before.items():
            if before is not signal.SIG_IGN:
                signal.signal(signum, before)
        held, self._held = self._held, []
        for again in dict.fromkeys(held):
            if again not in (signal.SIGWINCH, signal.SIGCONT):
                os.kill(os.getpid(), again)

    @property
    def pid(self) -> int:
        assert self._pid is not None
        return self._pid


def _follow(replies: wire.Replies, relay: Relay) -> int:
    """Relay signals to the child until its exit status arrives; then exit as it did."""
    pid = relay.pid
    while True:
        message = replies.next()
        if message is None:
            _note(f"the warm process went away while child {pid} ran; its exit status is lost")
            return 1
        if message.get("suspend"):
            _stop_with(pid, relay.forward)
        elif isinstance(message.get("exit"), int):
            return message["exit"]
        elif isinstance(message.get("signal"), int):
            return _die_of(message["signal"])


def _stop_with(pid: int, forward: Callable[[int, object], None]) -> None:
    """The child stopped itself (it cannot stop the shell's job): stop this process the way
    the terminal would have, so the shell sees the job stopped; SIGCONT then wakes both."""
    _wait_stopped(pid)
    signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTSTP)
    signal.signal(signal.SIGTSTP, forward)
    # Here after SIGCONT (``fg``), or at once when the kernel dropped the stop (an orphaned process
    # group: ``exec agent-tui``, a terminal running it directly), as it drops the child's in-process:
    # either way the child goes on.
    forward(signal.SIGCONT, None)


def _wait_stopped(pid: int, timeout: float = 1.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                if stat.read().rsplit(b")", 1)[-1].split()[0] in (b"T", b"t"):
                    return
        except OSError:
            return
        time.sleep(0.005)


def _die_of(signum: int) -> int:
    """End as the child ended: by the same signal (a shell then reports it the same way)."""
    sys.stdout.flush()
    if signum not in (signal.SIGKILL, signal.SIGSTOP):  # those two have no handler to reset
        signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    return 128 + signum  # only reached for a signal whose default is not to end the process


def wanted(environ: Mapping[str, str] | None = None) -> bool:
    """``[warm] idle_minutes`` is not 0 (read only on this path: with a warm process up, that
    process watches the setting)."""
    from agent_tui.core.api import ConfigError, read_layers

    try:
        config = read_layers(environ={}).sources[0][1]
    except ConfigError:
        config = {}
    return place.idle_minutes(os.environ if environ is None else environ, config) > 0


def start(key: str) -> None:
    """Start the warm process for ``key`` in the background: detached (double fork, its own
    session), in ``/``, output to ``<data dir>/warm.log``. It gives up by itself when another
    one for the key holds the lock."""
    from agent_tui.core.api import paths

    data = paths.data_dir()
    data.mkdir(parents=True, exist_ok=True)
    log = str(data / "warm.log")
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        os.setsid()
        if os.fork() == 0:
            out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out, 1)
            os.dup2(out, 2)
            os.closerange(3, 65536)
            os.chdir("/")
            os.execv(sys.executable, [sys.executable, "-P", "-m", "agent_tui.warm", key])
    finally:
        os._exit(0)


def _note(line: str) -> None:
    """One debug line in ``<data dir>/warm.log``; never a word on the user's terminal."""
    try:
        from agent_tui.core.api import paths

        data = paths.data_dir()
        data.mkdir(parents=True, exist_ok=True)
        fd = os.open(data / "warm.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # it names prompts
        with open(fd, "a", encoding="utf-8") as out:
            out.write(f"launcher[{os.getpid()}] {line}\n")
    except OSError:
        pass


def server_sockets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Every warm socket of this user (any key), for ``agent-tui warm status|stop``."""
    directory = place.runtime_dir(environ)
    return sorted(str(p) for p in directory.glob("warm-*.sock"))


def ask(path: str, op: str, timeout: float = 5.0) -> dict | None:
    """One ``status`` or ``stop`` request; None when nothing answers there."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
        _send(sock, {"op": op})
        return wire.Replies(sock).next()
    except OSError:
        return None
    finally:
        sock.close()
