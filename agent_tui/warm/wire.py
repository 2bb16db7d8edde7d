"""Messages on the warm socket.

A request is one frame: a 4-byte big-endian length and that much JSON, sent
with the caller's standard input, output and error attached (``SCM_RIGHTS``)
when it asks for a launch. Everything sent back to the caller is one JSON
object per line: ``{"pid": N}`` once the child runs, ``{"suspend": true}``
when the child asks the caller to stop itself (Ctrl+Z), and last
``{"exit": code}`` or ``{"signal": n}``.
"""

from __future__ import annotations

import json
import socket
import struct

TYPE_CHECKING = False  # importing typing costs the launcher ~5 ms
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

MAX_REQUEST = 1 << 20  # an environment is a few KiB; anything near this is not a request
STDIO = 3  # a launch brings standard input, output and error


class BadRequest(Exception):
    """What came in is not a request: refused, logged, and the warm process keeps serving."""


def send_request(sock: socket.socket, request: dict[str, Any], fds: Sequence[int] = ()) -> None:
    body = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogateescape")
    frame = struct.pack(">I", len(body)) + body
    sent = socket.send_fds(sock, [frame], list(fds)) if fds else sock.send(frame)
    if sent < len(frame):
        sock.sendall(frame[sent:])


def receive_request(
    sock: socket.socket, max_fds: int = STDIO, deadline: float | None = None
) -> tuple[dict[str, Any], list[int]]:
    """One request and the descriptors that came with it (more than ``max_fds`` is refused);
    raises :class:`BadRequest`. ``deadline`` (``time.monotonic()``): the whole request must be in
    by then, however its bytes trickle in (the warm process serves one connection at a time).

    Descriptors are closed here when the request is refused, so a bad caller
    cannot leak them into the warm process."""
    fds: list[int] = []
    try:
        _until(sock, deadline)
        data, fds, flags, _ = socket.recv_fds(sock, 64 * 1024, max_fds)
        if flags & socket.MSG_CTRUNC:
            raise BadRequest(f"more than {max_fds} descriptors")
        if len(data) < 4:
            data += _exactly(sock, 4 - len(data), deadline)
        (length,) = struct.unpack(">I", data[:4])
        if length > MAX_REQUEST:
            raise BadRequest(f"a request of {length} bytes")
        body = data[4:]
        if len(body) < length:
            body += _exactly(sock, length - len(body), deadline)
        if len(body) > length:
            raise BadRequest("bytes after the request")
        request = json.loads(body.decode("utf-8", "surrogateescape"), parse_constant=_no_constant)
        if not isinstance(request, dict) or not isinstance(request.get("op"), str):
            raise BadRequest("no op")
        return request, fds
    except TimeoutError:
        _close(fds)
        raise BadRequest("unreadable: the request was not complete in time") from None
    except (OSError, ValueError, struct.error, RecursionError) as error:
        _close(fds)
        raise BadRequest(f"unreadable: {error!r}"[:200]) from None
    except BadRequest:
        _close(fds)
        raise


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a value a request has")


def _until(sock: socket.socket, deadline: float | None) -> None:
    """The socket's timeout: what is left until ``deadline``."""
    if deadline is None:
        return
    import time

    left = deadline - time.monotonic()
    if left <= 0:
        raise BadRequest("unreadable: the request was not complete in time")
    sock.settimeout(left)


def _exactly(sock: socket.socket, count: int, deadline: float | None = None) -> bytes:
    chunks, left = [], count
    while left:
        _until(sock, deadline)
        chunk = sock.recv(left)
        if not chunk:
            raise BadRequest("the caller hung up mid-request")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _close(fds: list[int]) -> None:
    import os

    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def reply(sock: socket.socket, message: dict[str, Any]) -> bool:
    """One line to the caller; False when the caller is gone."""
    try:
        sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        return True
    except OSError:
        return False


class Replies:
    """The caller's side: the lines the warm side sends, one at a time."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = b""

    def next(self) -> dict[str, Any] | None:
        """The next message, or None at the end of the stream."""
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(4096)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            return None
        return message if isinstance(message, dict) else None
