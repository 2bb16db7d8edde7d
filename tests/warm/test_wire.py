"""The warm socket's messages over a real socket pair: requests with descriptors, refusals, replies."""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
from collections.abc import Iterator

import pytest

from agent_tui.warm import wire


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    right.settimeout(10)
    yield left, right
    left.close()
    right.close()


def open_fds() -> set[int]:
    return {int(name) for name in os.listdir("/proc/self/fd")}


def pipes(count: int) -> tuple[list[int], list[int]]:
    """``count`` pipes: their read ends (to send) and write ends (to check what the receiver got)."""
    reads, writes = [], []
    for _ in range(count):
        r, w = os.pipe()
        reads.append(r)
        writes.append(w)
    return reads, writes


def close(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def test_a_launch_with_its_three_descriptors_round_trips(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    reads, writes = pipes(3)
    request = {"op": "launch", "argv": ["agent-tui", "run", "héllo"], "env": {"A": "1"}, "umask": 0o22}
    wire.send_request(left, request, reads)
    got, fds = wire.receive_request(right)
    assert got == request
    assert len(fds) == 3 and not set(fds) & set(reads)
    for index, (fd, w) in enumerate(zip(fds, writes, strict=True)):
        assert os.fstat(fd).st_ino == os.fstat(reads[index]).st_ino  # the same pipe, a new descriptor
        os.write(w, f"pipe {index}".encode())
        assert os.read(fd, 100) == f"pipe {index}".encode()
    close(fds + reads + writes)


def test_a_request_without_descriptors_round_trips(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    wire.send_request(left, {"op": "status"})
    assert wire.receive_request(right) == ({"op": "status"}, [])


def test_a_request_larger_than_one_read_round_trips(pair: tuple[socket.socket, socket.socket]) -> None:
    """A large environment arrives in several reads; the descriptors come with the first."""
    left, right = pair
    reads, writes = pipes(3)
    request = {"op": "launch", "env": {f"VAR_{i}": "x" * 100 for i in range(3000)}}  # ~330 KB
    sender = threading.Thread(target=wire.send_request, args=(left, request, reads))
    sender.start()
    got, fds = wire.receive_request(right)
    sender.join(10)
    assert got == request and len(fds) == 3
    close(fds + reads + writes)


def test_an_undecodable_environment_value_round_trips(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    value = b"caf\xe9".decode("utf-8", "surrogateescape")
    wire.send_request(left, {"op": "launch", "env": {"X": value}})
    got, _ = wire.receive_request(right)
    assert got["env"]["X"] == value


def test_more_descriptors_than_allowed_are_refused_and_closed(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    reads, writes = pipes(6)
    before = open_fds()
    wire.send_request(left, {"op": "launch"}, reads)
    with pytest.raises(wire.BadRequest, match="more than 3 descriptors"):
        wire.receive_request(right, max_fds=3)
    assert open_fds() == before  # none of the received descriptors stayed open
    close(reads)
    for w in writes:  # and no one holds a read end: the pipes are broken
        with pytest.raises(BrokenPipeError):
            os.write(w, b"x")
    close(writes)


def test_the_limit_is_the_receivers(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    reads, writes = pipes(4)
    wire.send_request(left, {"op": "launch"}, reads)
    got, fds = wire.receive_request(right, max_fds=4)
    assert got == {"op": "launch"} and len(fds) == 4
    close(fds + reads + writes)


def frame(body: bytes, length: int | None = None) -> bytes:
    return struct.pack(">I", len(body) if length is None else length) + body


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        pytest.param(frame(b"", wire.MAX_REQUEST + 1), "a request of 1048577 bytes", id="too long"),
        pytest.param(b"\xff\xff\xff\xffgarbage", "a request of 4294967295 bytes", id="bogus length"),
        pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "a request of", id="http"),
        pytest.param(frame(b"not json"), "unreadable", id="not json"),
        pytest.param(frame(b"\xff\xfe{}"), "unreadable", id="not utf-8 json"),
        pytest.param(frame(b""), "unreadable", id="empty"),
        pytest.param(frame(b'{"op": 1}'), "no op", id="op not a string"),
        pytest.param(frame(b'{"argv": ["agent-tui"]}'), "no op", id="no op"),
        pytest.param(frame(b'["op", "status"]'), "no op", id="a list"),
        pytest.param(frame(b'"status"'), "no op", id="a string"),
        pytest.param(frame(b'{"op": "status"}') + b"more", "bytes after the request", id="trailing bytes"),
    ],
)
def test_what_is_not_a_request_is_refused_and_its_descriptors_closed(
    pair: tuple[socket.socket, socket.socket], data: bytes, reason: str
) -> None:
    left, right = pair
    reads, writes = pipes(3)
    before = open_fds()
    socket.send_fds(left, [data], reads)
    with pytest.raises(wire.BadRequest, match=reason):
        wire.receive_request(right)
    assert open_fds() == before
    close(reads + writes)


@pytest.mark.parametrize(
    "data", [b"", b"\x00\x00", frame(b'{"op": "status"}')[:10]], ids=["nothing", "half a length", "half a body"]
)
def test_a_caller_that_hangs_up_mid_request_is_refused(pair: tuple[socket.socket, socket.socket], data: bytes) -> None:
    left, right = pair
    left.sendall(data)
    left.shutdown(socket.SHUT_WR)
    with pytest.raises(wire.BadRequest):
        wire.receive_request(right)


def test_a_caller_that_stops_sending_times_out_as_a_bad_request(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    right.settimeout(0.2)
    left.sendall(frame(b'{"op": "status"}')[:8])
    with pytest.raises(wire.BadRequest, match="unreadable"):
        wire.receive_request(right)


def test_a_request_in_pieces_is_read_whole(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    data = frame(json.dumps({"op": "stop"}).encode())
    results: list[object] = []
    reader = threading.Thread(target=lambda: results.append(wire.receive_request(right)))
    reader.start()
    for i in range(0, len(data), 3):  # the reader may see each piece on its own
        left.sendall(data[i : i + 3])
    reader.join(10)
    assert results == [({"op": "stop"}, [])]


def test_replies_are_read_one_line_at_a_time(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    assert wire.reply(left, {"pid": 42})
    left.sendall(b'{"suspend":true}\n{"exi')
    replies = wire.Replies(right)
    assert replies.next() == {"pid": 42}
    assert replies.next() == {"suspend": True}
    left.sendall(b't":3}\n')
    assert replies.next() == {"exit": 3}
    left.sendall(b"[1, 2]\n")
    assert replies.next() is None  # not an object: the end
    left.close()
    assert replies.next() is None


def test_garbage_in_a_reply_is_the_end(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    left.sendall(b"{oops\n")
    assert wire.Replies(right).next() is None


def test_a_reply_to_a_caller_that_is_gone_says_so(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    right.close()
    assert wire.reply(left, {"exit": 0}) is False
