"""A stand-in warm process that takes a launch and holds its reply until the test sends it: the
moment between a launcher's request and the child's pid, which a real warm process keeps to
milliseconds, made as long as a test needs."""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from pathlib import Path
from typing import Any

from agent_tui.warm import wire

SIGNAL_RECORDER = """
import signal, sys, time
def got(signum, frame):
    print(signum, flush=True)
for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(signum, got)
print("ready", flush=True)
while True:
    time.sleep(60)
"""
"""A process standing in for the warm child: prints ``ready``, then each signal it gets."""


class HeldWarm:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(1)
        self.listener.settimeout(60)
        self.conn: socket.socket | None = None

    def take(self) -> dict[str, Any]:
        """Accept one launch and read its request (its stdio is closed: nothing runs it)."""
        self.conn, _ = self.listener.accept()
        self.conn.settimeout(60)
        request, fds = wire.receive_request(self.conn)
        for fd in fds:
            os.close(fd)
        return request

    def reply(self, message: dict[str, Any]) -> None:
        assert self.conn is not None
        assert wire.reply(self.conn, message)

    def close(self) -> None:
        for sock in (self.conn, self.listener):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.close()
        self.path.unlink(missing_ok=True)


def recorder_command() -> list[str]:
    return [sys.executable, "-c", SIGNAL_RECORDER]
