"""A throwaway PostgreSQL server for tests and benches: ``initdb`` into a temp dir, then ``postgres``.

The server listens only on a Unix socket in its own directory (``listen_addresses = ''``), so no
TCP port can collide with another run or another helper on the machine; the port number only names
the socket file. PostgreSQL refuses to run as root, so under root (CI) the server runs as
``nobody`` and its directory is handed to that user; the test process, root, still reaches the
socket. Readiness is a connection that succeeds, polled with a deadline (no fixed sleep), and a
server that dies while starting is reported with its log.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SEARCH = ("/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/opt/homebrew/bin", "/usr/local/bin", "/usr/bin")
RUN_AS_WHEN_ROOT = "nobody"
PORT = 5432  # names the socket file only: the server has no TCP listener
START_TIMEOUT_S = 30.0


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries on this machine, or the server would not start."""


def find_bin_dir() -> Path:
    """The directory holding ``initdb`` and ``postgres``: ``PG_BIN`` if set, else the newest of the usual places."""
    if explicit := os.environ.get("PG_BIN"):
        return Path(explicit)
    candidates = [
        Path(found)
        for pattern in SEARCH
        for found in sorted(glob.glob(pattern), key=_version_key)
        if Path(found, "initdb").exists() and Path(found, "postgres").exists()
    ]
    if not candidates:
        raise PostgresUnavailable("no PostgreSQL server binaries (initdb, postgres); install the postgresql package")
    return candidates[0]


def _version_key(path: str) -> tuple[int, ...]:
    """Newest first: ``/usr/lib/postgresql/16/bin`` before ``…/15/bin``."""
    return tuple(-int(part) for part in path.split("/") if part.isdigit())


@dataclass(frozen=True)
class PostgresServer:
    """A running server: its data dir, socket dir and process."""

    root: Path
    process: subprocess.Popen[bytes]

    @property
    def socket_dir(self) -> Path:
        return self.root / "socket"

    def url(self, dbname: str = "postgres") -> str:
        """A libpq connection URL over the server's Unix socket."""
        return f"postgresql://postgres@/{dbname}?host={self.socket_dir}&port={PORT}"

    def stop(self) -> None:
        """Fast shutdown (SIGINT: abort sessions, checkpoint, exit), then remove everything."""
        if self.process.poll() is None:
            self.process.send_signal(2)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass(frozen=True)
class _RunAs:
    """Who the server's processes run as: ``nobody`` when we are root, else ourselves (all None)."""

    user: int | None = None
    group: int | None = None
    extra_groups: tuple[int, ...] | None = None

    @classmethod
    def for_this_process(cls) -> _RunAs:
        if os.geteuid() != 0:
            return cls()
        user = pwd.getpwnam(RUN_AS_WHEN_ROOT)
        return cls(user.pw_uid, user.pw_gid, ())


def start(durable: bool = False) -> PostgresServer:
    """Initialize and start a server; ``durable`` keeps ``fsync`` on (benches), tests turn it off."""
    bin_dir = find_bin_dir()
    root = Path(tempfile.mkdtemp(prefix="agent-tui-pg-"))
    root.chmod(0o755)  # the server's user must reach its directory
    (root / "socket").mkdir()
    run_as = _RunAs.for_this_process()
    if run_as.user is not None and run_as.group is not None:
        for path in (root, root / "socket"):
            os.chown(path, run_as.user, run_as.group)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "TZ": "UTC"}
    init = subprocess.run(
        [str(bin_dir / "initdb"), "-D", str(root / "data"), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"],
        env=env,
        capture_output=True,
        check=False,
        user=run_as.user,
        group=run_as.group,
        extra_groups=run_as.extra_groups,
    )
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise PostgresUnavailable(f"initdb failed: {init.stderr.decode(errors='replace')[-2000:]}")
    settings = ["listen_addresses=", f"unix_socket_directories={root / 'socket'}", f"port={PORT}"]
    settings += [] if durable else ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]
    args = [str(bin_dir / "postgres"), "-D", str(root / "data")]
    for setting in settings:
        args += ["-c", setting]
    log = open(root / "server.log", "wb")  # noqa: SIM115 - the server writes it for its whole life
    process = subprocess.Popen(
        args,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        user=run_as.user,
        group=run_as.group,
        extra_groups=run_as.extra_groups,
    )
    log.close()
    server = PostgresServer(root, process)
    try:
        _wait_ready(server)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_ready(server: PostgresServer) -> None:
    import psycopg  # the postgres extra; only tests and benches of that backend get here

    deadline = time.monotonic() + START_TIMEOUT_S
    pause = 0.01
    while True:
        if server.process.poll() is not None:
            raise PostgresUnavailable(f"postgres exited while starting: {_log_tail(server)}")
        try:
            psycopg.connect(server.url(), connect_timeout=2).close()
            return
        except psycopg.OperationalError as error:
            if time.monotonic() + pause > deadline:
                raise PostgresUnavailable(f"postgres not ready after {START_TIMEOUT_S}s: {error}") from None
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def _log_tail(server: PostgresServer) -> str:
    with contextlib.suppress(OSError):
        return (server.root / "server.log").read_text(errors="replace")[-2000:]
    return "(no log)"


@contextlib.contextmanager
def running(durable: bool = False) -> Iterator[PostgresServer]:
    """A server for the ``with`` block, stopped and removed after it."""
    server = start(durable)
    try:
        yield server
    finally:
        server.stop()
