"""A forked child becomes the launch: the caller's stdio, cwd, environment, umask and argv.

After :func:`adopt` the process looks to agent-tui's code like a fresh one
started by the caller, and :func:`run` runs the same entry point a fresh
process runs. Two things differ and are handled here: the child is not in the
terminal's foreground process group, so it asks its caller to stop instead of
stopping itself (:func:`_ask_to_suspend`); and the caller, not the terminal,
delivers it the signals the terminal would have.
"""

from __future__ import annotations

import io
import os
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, NoReturn

from agent_tui.warm import place, wire

_RETIRED: list[Any] = []
"""The warm process's own stdio objects: kept alive, since closing them would close fds 0-2."""

_CALLER: socket.socket | None = None


@dataclass(frozen=True)
class Launch:
    """One launch, as the caller asked for it."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    umask: int
    path0: str | None
    ignored: list[int]
    executable: str | None = None
    limits: dict[str, tuple[int, int]] | None = None
    nice: int | None = None

    @classmethod
    def from_request(cls, request: dict[str, Any]) -> Launch:
        try:
            launch = cls(
                argv=[str(a) for a in request["argv"]],
                cwd=str(request["cwd"]),
                env={str(k): str(v) for k, v in dict(request["env"]).items()},
                umask=int(request["umask"]) & 0o777,
                path0=None if request.get("path0") is None else str(request["path0"]),
                ignored=[int(s) for s in request.get("ignored", [])],
                executable=None if request.get("executable") is None else str(request["executable"]),
                limits={str(k): (int(v[0]), int(v[1])) for k, v in dict(request.get("limits") or {}).items()},
                nice=None if request.get("nice") is None else int(request["nice"]),
            )
        except (KeyError, TypeError, ValueError, ArithmeticError) as error:
            raise wire.BadRequest(f"not a launch: {error!r}") from None
        if not launch.argv:
            raise wire.BadRequest("not a launch: empty argv")
        if unknown := set(launch.limits or {}) - set(place.LIMITS):
            raise wire.BadRequest(f"not a launch: unknown limits {sorted(unknown)}")
        return launch


def adopt(launch: Launch, stdio: list[int], caller: socket.socket, defaults: dict[int, Any]) -> None:
    """Take over the caller's process state; raises OSError (the caller then hears of a failed launch)."""
    global _CALLER
    _CALLER = caller
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    for target, fd in enumerate(stdio):
        if fd != target:
            os.dup2(fd, target)
            os.close(fd)
    os.chdir(launch.cwd)  # after the caller's stderr is fd 2: a failure is reported there, not in warm.log
    take_environment(launch.env)
    os.umask(launch.umask)
    _take_limits(launch)
    sys.argv = list(launch.argv)
    if launch.executable:
        sys.executable = launch.executable
    if launch.path0 is not None:  # the script's directory, as a fresh process has it first on sys.path
        if sys.flags.safe_path or not sys.path:  # the warm process runs with -P: it has none
            sys.path.insert(0, launch.path0)
        else:
            sys.path[0] = launch.path0
    _reopen_stdio()
    signal.set_wakeup_fd(-1)
    for signum, handler in defaults.items():
        signal.signal(signum, handler)
    for signum in launch.ignored:
        signal.signal(signum, signal.SIG_IGN)
    if signal.getsignal(signal.SIGTSTP) is not signal.SIG_IGN:
        signal.signal(signal.SIGTSTP, _ask_to_suspend)
    # Held since the spare was forked: a stop forwarded before this point lands now, on the handler
    # (with the default action the kernel drops it: this process group has no terminal).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTSTP})


def take_environment(env: dict[str, str]) -> None:
    """The caller's environment, and what this process had read from its own once and kept."""
    os.environ.clear()
    os.environ.update(env)
    time.tzset()  # the caller's TZ, not the one this process read its clock with
    tempfile.tempdir = None  # the caller's TMPDIR, not the one the app's rehearsal cached


def grantable(launch: Launch) -> str | None:
    """Why this process cannot take on the caller's limits and priority (None: it can): a limit
    only goes down, and a priority only gets lower, without privileges."""
    import resource

    for name, (_, hard) in (launch.limits or {}).items():
        own = resource.getrlimit(getattr(resource, name))[1]
        if own != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or hard > own):
            return f"{name} {hard} is above this process's {own}"
    if launch.nice is not None and launch.nice < os.getpriority(os.PRIO_PROCESS, 0):
        return f"priority {launch.nice} is above this process's"
    return None


def _take_limits(launch: Launch) -> None:
    import resource

    for name, (soft, hard) in (launch.limits or {}).items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    if launch.nice is not None:
        os.setpriority(os.PRIO_PROCESS, 0, launch.nice)


def _reopen_stdio() -> None:
    """New ``sys.std*`` objects over fds 0-2, buffered as Python buffers a fresh process's
    (the warm process's own were made for its log file)."""
    old_out, old_err = sys.__stdout__, sys.__stderr__
    _RETIRED.extend([sys.__stdin__, old_out, old_err, sys.stdin, sys.stdout, sys.stderr])
    encoding = old_out.encoding if old_out is not None else "utf-8"
    errors = old_out.errors if old_out is not None else "strict"
    unbuffered = bool(getattr(old_out, "write_through", False))  # PYTHONUNBUFFERED is in the key

    def wrap(fd: int, mode: str, line: bool, errs: str | None) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffered: Any = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        return io.TextIOWrapper(
            buffered, encoding=encoding, errors=errs, line_buffering=line, write_through=unbuffered and mode == "w"
        )

    def install(name: str, stream: io.TextIOWrapper) -> None:
        """``sys.<name>`` and ``sys.__<name>__`` (final to type checkers: a fresh process sets them, as this one does)."""
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)

    install("stdin", wrap(0, "r", False, errors))
    install("stdout", wrap(1, "w", os.isatty(1), errors))
    install("stderr", wrap(2, "w", True, "backslashreplace"))


def _ask_to_suspend(signum: int, frame: object) -> None:
    """SIGTSTP: the kernel would drop it (this process group has no terminal), so the caller,
    which holds the terminal's job control, stops itself once this process has stopped."""
    if _CALLER is not None and wire.reply(_CALLER, {"suspend": True}):
        os.kill(os.getpid(), signal.SIGSTOP)


def run(launch: Launch) -> NoReturn:
    """What the ``agent-tui`` entry point runs, with the caller's argv; then exits as it would."""
    from agent_tui.cli import main

    try:
        code: object = main(launch.argv[1:], warm=False)
    except SystemExit as stop:  # argparse's usage errors, --help
        code = stop.code
    end(code)


def end(code: object) -> NoReturn:
    """Exit as Python does (non-daemon threads joined, ``atexit`` handlers run, stdio flushed, the
    same status) but without freeing the heap object by object: this child's objects are on pages
    it shares with the warm process, and freeing them copied every page (``run "hi"``: 0.32 s ->
    0.16 s, most of it after the answer was printed)."""
    import atexit
    import threading

    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()  # no public name; what Python's own exit runs here
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code & 0xFF
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
