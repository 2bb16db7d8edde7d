"""The warm process: import everything once, then fork a child per launch.

It runs ``python -m agent_tui.warm KEY``, started by the first launch that
found none (detached, in its own session, logging to ``<data dir>/warm.log``).
It imports Textual, LiteLLM and agent-tui, makes LiteLLM's first call (mocked,
no network), freezes what exists for the garbage collector, and only then
listens, so a launch never waits on a warm-up. Between launches it runs no
threads and no event loop, only :meth:`Server.serve`'s ``select``, so forking
is safe; it checks that before every fork.

One spare child is forked ahead and waits; a launch hands it the caller's
connection and stdio and forks the next spare. The caller's connection stays
open here too: this process reports the child's exit status on it, and its
end of file means the caller died, and the child is hung up on.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib
import logging
import os
import pkgutil
import selectors
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agent_tui
from agent_tui.warm import child, place, wire

log = logging.getLogger("agent_tui.warm")

HANGUP_GRACE_S = 10.0  # a child whose caller died gets SIGHUP, then SIGKILL after this
REQUEST_TIMEOUT_S = 5.0
CHECK_EVERY_S = 2.0  # how often the installed code is checked for a change
_SIGNALS = (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_SKIPPED = ("agent_tui.testing", "agent_tui.warm.__main__", "agent_tui.__main__")


@dataclass
class Running:
    """A child serving a launch, and the caller's connection it reports to."""

    pid: int
    caller: socket.socket
    hangup_at: float | None = None  # when the caller hung up
    killed: bool = False


@dataclass
class Spare:
    pid: int
    channel: socket.socket


@dataclass
class Server:
    listener: socket.socket
    path: Path
    key: str
    stamp: str
    idle_s: float
    defaults: dict[int, Any]
    lock: Any  # the open lock file: held while this process listens
    running: dict[int, Running] = field(default_factory=dict)
    spare: Spare | None = None
    launches: int = 0
    last_busy: float = field(default_factory=time.monotonic)
    stopping: bool = False
    _wake: tuple[int, int] = (-1, -1)

    def serve(self) -> child.Launch | None:
        """Serve until idle, stopped or outdated; in a forked child, return its launch instead."""
        wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._wake = (wake_r, wake_w)
        signal.set_wakeup_fd(wake_w)
        for signum in _SIGNALS:
            signal.signal(signum, lambda *_: None)  # only to wake select through the wakeup fd
        selector = selectors.DefaultSelector()
        selector.register(self.listener, selectors.EVENT_READ, "accept")
        selector.register(wake_r, selectors.EVENT_READ, "wake")
        next_check = time.monotonic() + CHECK_EVERY_S
        try:
            while True:
                if self.spare is None and not self.stopping:
                    launch = self._fork_spare()
                    if launch is not None:
                        selector.close()
                        return launch
                if self._finished():
                    return None
                now = time.monotonic()
                for event, _ in selector.select(self._timeout(now, next_check)):
                    match event.data:
                        case "accept":
                            self._accept(selector)
                        case "wake":
                            self._woken(wake_r)
                        case Running() as running:
                            self._caller_readable(selector, running)
                self._reap(selector)
                self._kill_stragglers()
                next_check = self._checks(selector, next_check)
        finally:
            if self._is_warm_process():
                self._cleanup()

    # -- the loop's parts ---------------------------------------------------------------------

    def _checks(self, selector: selectors.BaseSelector, next_check: float) -> float:
        """Stops when the code changed, warm start was turned off (both checked every CHECK_EVERY_S) or
        it is idle; returns when to check again."""
        if time.monotonic() >= next_check:
            next_check = time.monotonic() + CHECK_EVERY_S
            if not self.stopping and place.code_stamp() != self.stamp:
                log.info("agent-tui's code changed: stopping")
                self._stop(selector)
            self.idle_s = place.idle_minutes(config=_user_config()) * 60
            if not self.stopping and self.idle_s <= 0:
                log.info("warm start was turned off ([warm] idle_minutes = 0): stopping")
                self._stop(selector)
        if not self.stopping and not self.running and time.monotonic() - self.last_busy >= self.idle_s:
            log.info("idle for %g minutes: stopping", self.idle_s / 60)
            self._stop(selector)
        return next_check

    def _timeout(self, now: float, next_check: float) -> float:
        deadlines = [next_check]
        if not self.stopping and not self.running:
            deadlines.append(self.last_busy + self.idle_s)
        deadlines += [r.hangup_at + HANGUP_GRACE_S for r in self.running.values() if r.hangup_at and not r.killed]
        return max(0.0, min(deadlines) - now)

    def _finished(self) -> bool:
        return self.stopping and not self.running

    def _woken(self, wake_r: int) -> None:
        try:
            signums = os.read(wake_r, 512)
        except BlockingIOError:
            return
        if any(s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP) for s in signums) and not self.stopping:
            log.info("signal received: stopping")
            self._stop(None)

    def _accept(self, selector: selectors.BaseSelector) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        try:
            self._handle(conn, selector)
        except wire.BadRequest as error:
            log.warning("refused a request: %s", error)
            wire.reply(conn, {"refused": str(error)})
            conn.close()
        except Exception as error:  # noqa: BLE001 - one bad request never ends the warm process
            log.exception("refused a request that failed unexpectedly")
            wire.reply(conn, {"refused": f"failed: {error!r}"})
            conn.close()

    def _handle(self, conn: socket.socket, selector: selectors.BaseSelector) -> None:
        pid, uid, gid = struct.unpack(
            "3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        )
        if uid != os.getuid():
            raise wire.BadRequest(f"process {pid} of uid {uid} is not this user")
        if (other := place.other_context(pid, gid)) is not None:
            raise wire.BadRequest(f"process {pid} {other}")
        request, fds = _read_request(conn)
        match request["op"]:
            case "launch":
                self._launch(conn, request, fds, selector)
            case "status":
                _close_all(fds)
                wire.reply(conn, self.status())
                conn.close()
            case "stop":
                _close_all(fds)
                wire.reply(conn, {"stopping": True, "pid": os.getpid(), "running": len(self.running)})
                conn.close()
                log.info("asked to stop")
                self._stop(selector)
            case other:
                _close_all(fds)
                raise wire.BadRequest(f"unknown op {other!r}")

    def _launch(
        self, conn: socket.socket, request: dict[str, Any], fds: list[int], selector: selectors.BaseSelector
    ) -> None:
        try:
            launch = child.Launch.from_request(request)
            if len(fds) != wire.STDIO:
                raise wire.BadRequest(f"a launch with {len(fds)} descriptors, not {wire.STDIO}")
            if request.get("key") != self.key:
                raise wire.BadRequest("a launch for another key")
            if (why := child.grantable(launch)) is not None:
                raise wire.BadRequest(f"the caller's limits cannot be granted: {why}")
        except wire.BadRequest:
            _close_all(fds)
            raise
        spare = self.spare
        if self.stopping or spare is None:
            _close_all(fds)
            wire.reply(conn, {"refused": "stopping" if self.stopping else "no child ready"})
            conn.close()
            return
        self.spare = None
        try:
            wire.send_request(spare.channel, request, [conn.fileno(), *fds])
        except OSError as error:
            log.warning("the spare child %d did not take the launch: %s", spare.pid, error)
            wire.reply(conn, {"refused": "the spare child is gone"})
            conn.close()
            return
        finally:
            _close_all(fds)
            spare.channel.close()
        running = Running(spare.pid, conn)
        self.running[spare.pid] = running
        self.launches += 1
        self.last_busy = time.monotonic()
        selector.register(conn, selectors.EVENT_READ, running)
        wire.reply(conn, {"pid": spare.pid})
        log.info("launch %d: child %d for %s", self.launches, spare.pid, _described(launch.argv))

    def _caller_readable(self, selector: selectors.BaseSelector, running: Running) -> None:
        try:
            data = running.caller.recv(4096, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            return  # a caller says nothing after its request; ignore whatever it is
        selector.unregister(running.caller)
        if running.hangup_at is None:
            log.info("the caller of child %d hung up: SIGHUP", running.pid)
            running.hangup_at = time.monotonic()
            _kill(running.pid, signal.SIGHUP)
            _kill(running.pid, signal.SIGCONT)  # as a terminal's hang-up does: a stopped child handles it too

    def _kill_stragglers(self) -> None:
        now = time.monotonic()
        for running in self.running.values():
            if running.hangup_at is not None and not running.killed and now - running.hangup_at >= HANGUP_GRACE_S:
                log.warning("child %d outlived its caller by %.0f s: SIGKILL", running.pid, HANGUP_GRACE_S)
                running.killed = True
                _kill(running.pid, signal.SIGKILL)

    def _reap(self, selector: selectors.BaseSelector) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if self.spare is not None and pid == self.spare.pid:
                log.warning("the spare child %d ended (status %d)", pid, status)
                self.spare.channel.close()
                self.spare = None
                continue
            running = self.running.pop(pid, None)
            if running is None:
                continue
            self.last_busy = time.monotonic()
            outcome = (
                {"signal": os.WTERMSIG(status)}
                if os.WIFSIGNALED(status)
                else {"exit": os.waitstatus_to_exitcode(status)}
            )
            if running.hangup_at is None:
                selector.unregister(running.caller)
            wire.reply(running.caller, outcome)
            running.caller.close()
            log.info("child %d ended: %s", pid, outcome)

    def _fork_spare(self) -> child.Launch | None:
        """A child that waits for a launch. In that child this returns the launch it became."""
        if threading.active_count() != 1:
            names = [t.name for t in threading.enumerate()]
            log.error("threads are running (%s): forking is not safe; stopping", ", ".join(names))
            self._stop(None)
            return None
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # The spare is born with SIGTSTP held, and holds it until it has taken a launch on (see
        # child.adopt): the launcher forwards a stop as soon as it hears the pid, which can be before.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTSTP})
        try:
            pid = os.fork()
        except OSError as error:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            log.error("fork failed: %s", error)
            mine.close()
            theirs.close()
            self._stop(None)
            return None
        if pid != 0:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        if pid == 0:
            mine.close()
            return self._wait_as_spare(theirs)
        theirs.close()
        self.spare = Spare(pid, mine)
        return None

    def _wait_as_spare(self, channel: socket.socket) -> child.Launch:
        """In the spare child: drop the warm process's descriptors, wait for a launch, become it."""
        signal.set_wakeup_fd(-1)
        for signum, handler in self.defaults.items():
            signal.signal(signum, handler)
        self.listener.close()
        self.lock.close()
        for fd in self._wake:
            os.close(fd)
        for running in self.running.values():
            running.caller.close()
        self.running.clear()
        for handler in list(log.handlers):
            log.removeHandler(handler)
            handler.close()
        try:
            request, fds = wire.receive_request(channel, max_fds=1 + wire.STDIO)
        except wire.BadRequest:
            os._exit(0)  # the warm process closed the channel: it is stopping
        channel.close()
        launch = child.Launch.from_request(request)
        caller = socket.socket(fileno=fds[0])
        child.adopt(launch, fds[1:], caller, self.defaults)
        return launch

    def status(self) -> dict[str, Any]:
        spare_pid = self.spare.pid if self.spare else None
        return {
            "pid": os.getpid(),
            "version": agent_tui.__version__,
            "key": self.key,
            "idle_s": round(time.monotonic() - self.last_busy, 1) if not self.running else 0.0,
            "rss_kib": _rss_kib(os.getpid()),
            "spare_pid": spare_pid,
            "spare_rss_kib": _rss_kib(spare_pid) if spare_pid else None,
            "running": sorted(self.running),
            "launches": self.launches,
            "stopping": self.stopping,
            "idle_minutes": self.idle_s / 60,
            "python": sys.executable,
            "rehearsed": _rehearsed,
        }

    def _stop(self, selector: selectors.BaseSelector | None) -> None:
        """No new launches: the socket goes, the spare ends; running children finish first."""
        if self.stopping:
            return
        self.stopping = True
        if selector is not None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(self.listener)
        with contextlib.suppress(OSError):
            self.path.unlink()  # ours: no other warm process of this key binds while we hold the lock
        self.listener.close()
        self.lock.close()  # a new warm process may start while our running children finish
        if self.spare is not None:
            self.spare.channel.close()  # its receive ends: it exits

    def _is_warm_process(self) -> bool:
        return self._owner == os.getpid()

    def __post_init__(self) -> None:
        self._owner = os.getpid()

    def _cleanup(self) -> None:
        if not self.stopping:
            self._stop(None)
        signal.set_wakeup_fd(-1)
        for fd in self._wake:
            with contextlib.suppress(OSError):
                os.close(fd)


def _read_request(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The caller's request: its first bytes within :data:`REQUEST_TIMEOUT_S`, and all of it
    within as long again (a caller trickling its bytes would otherwise hold every other launch)."""
    import select

    ready, _, _ = select.select([conn], [], [], REQUEST_TIMEOUT_S)
    if not ready:
        raise wire.BadRequest(f"no request within {REQUEST_TIMEOUT_S:.0f} s")
    try:
        return wire.receive_request(conn, deadline=time.monotonic() + REQUEST_TIMEOUT_S)
    finally:
        conn.settimeout(None)


def _described(argv: list[str]) -> str:
    """The launch's arguments for the log (the validated ones), without an API key given as one."""
    words: list[str] = []
    secret = False
    for word in argv[1:]:
        name, equals, _ = word.partition("=")
        if secret:
            word, secret = "***", False
        elif len(name) > len("--api-") and "--api-key".startswith(name):  # argparse takes --api-k too
            word, secret = name + ("=***" if equals else ""), not equals
        words.append(word)
    return " ".join(words) or "tui"


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _kill(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


def _rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


# -- start-up ------------------------------------------------------------------------------------


def warm_up() -> None:
    """Everything a launch would import or build before its first answer, done once here."""
    gc.disable()
    for module in _agent_tui_modules():
        try:
            importlib.import_module(module)
        except Exception as error:  # noqa: BLE001 - a module the launch may not need; it imports it then
            log.warning("warm-up could not import %s: %s", module, error)
    from agent_tui.core.api import load_llm, preload_llm

    load_llm()
    with _logging_inline():
        preload_llm(tokenizer=False)
    _rehearse_the_app()
    gc.collect()
    gc.freeze()  # children never collect (and so never copy) what the warm process made
    gc.enable()


def _rehearse_the_app() -> None:
    """The app once, headless: a launch's first frame then skips Textual's first-use work and
    the CSS parse: its first frame came ~27 ms after `cli.main` instead of ~40 (2-core VM)."""
    from agent_tui.tui.bootstrap import rehearse

    global _rehearsed
    theme = _user_config().get("theme")
    try:
        rehearse(theme if isinstance(theme, str) else None)
    except Exception as error:  # noqa: BLE001 - launches then start as they would without it
        log.warning("the app's rehearsal failed: %s", error)
    else:
        _rehearsed = True


_rehearsed = False  # shown by ``warm status --json``


def _agent_tui_modules() -> Iterator[str]:
    skipped = _SKIPPED if _telemetry_configured() else (*_SKIPPED, "agent_tui.telemetry")
    for info in pkgutil.walk_packages(agent_tui.__path__, "agent_tui."):
        if not info.name.startswith(skipped):
            yield info.name


def _telemetry_configured() -> bool:
    """The user's config names a collector: the launches will want the OpenTelemetry SDK, so it is
    imported here too; otherwise neither the telemetry package nor the SDK is (telemetry off costs
    nothing, warm or not)."""
    telemetry = _user_config().get("telemetry")
    return isinstance(telemetry, dict) and bool(telemetry.get("otlp_endpoint"))


@contextlib.contextmanager
def _logging_inline() -> Iterator[None]:
    """LiteLLM runs its post-call logging in a thread pool whose workers never exit; the
    warm-up's one mocked call runs it inline instead, so no thread outlives the warm-up."""
    from concurrent.futures import Future

    class Inline:
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            future: Future[Any] = Future()
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as error:  # noqa: BLE001 - handed over as a pool would
                future.set_exception(error)
            return future

    swapped: list[tuple[Any, Any]] = []  # (LiteLLM's module, its executor)
    for name in ("litellm.litellm_core_utils.litellm_logging", "litellm.litellm_core_utils.streaming_handler"):
        try:
            module: Any = importlib.import_module(name)  # its executor is a name LiteLLM's types do not declare
        except Exception:  # noqa: BLE001 - another LiteLLM: the thread check below says what is left
            continue
        if hasattr(module, "executor"):
            swapped.append((module, module.executor))
            module.executor = Inline()
    try:
        yield
    finally:
        for module, original in swapped:
            module.executor = original


def _setup_logging(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    os.close(os.open(data_dir / "warm.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600))  # it names prompts
    handler = logging.FileHandler(data_dir / "warm.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s warm[%(process)d] %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def main(argv: list[str]) -> child.Launch | None:
    """Become the warm process for ``argv[0]`` (the key the launcher computed); returns a launch
    in a forked child, None when the warm process ends."""
    # A child starts from what a fresh ``python`` has, then ignores what its caller ignores (the
    # launch's "ignored"); not from what this process inherited from the launcher that started it
    # (``nohup`` ignores SIGHUP, a non-interactive shell's ``&`` SIGINT and SIGQUIT).
    defaults: dict[int, Any] = {signum: signal.SIG_DFL for signum in (*_SIGNALS, signal.SIGQUIT, signal.SIGTSTP)}
    defaults[signal.SIGINT] = signal.default_int_handler
    defaults[signal.SIGPIPE] = signal.SIG_IGN
    os.chdir("/")
    from agent_tui.core.api import paths

    _setup_logging(paths.data_dir())
    key = argv[0] if argv else ""
    stamp = place.code_stamp()
    if place.launch_key(stamp=stamp) != key:
        log.info("not starting: this environment's key is not %s", key)
        return None
    lock = place.lock_path(key).open("a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return None  # another warm process for this key is starting or serving
    idle_s = place.idle_minutes(config=_user_config()) * 60
    if idle_s <= 0:
        return None
    started = time.monotonic()
    warm_up()
    path = place.socket_path(key)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # stale: we hold the lock, so no live process owns it
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(old_umask)
    listener.listen(16)
    log.info(
        "serving %s after a %.1f s warm-up (agent-tui %s, key %s)",
        path,
        time.monotonic() - started,
        agent_tui.__version__,
        key,
    )
    server = Server(listener, path, key, stamp, idle_s, defaults, lock)
    launch = server.serve()
    if launch is None:
        log.info("stopped after %d launches", server.launches)
    return launch


def _user_config() -> dict[str, Any]:
    """The user's config file as data (``[warm]`` is per user; a broken file is the launch's to report)."""
    from agent_tui.core.api import ConfigError, read_layers

    try:
        return read_layers(Path("/"), environ={}).sources[0][1]
    except ConfigError:
        return {}
