"""Prefixed, time-sortable identifiers (``ses_…``, ``msg_…``).

Layout: 48-bit millisecond timestamp + 80 random bits, Crockford base32 (26
chars, like a ULID). Within one millisecond the random part is incremented, so
ids made by one process sort in creation order.
"""

from __future__ import annotations

import os
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_lock = threading.Lock()
_last_ms = -1
_last_rand = 0

PREFIXES = ("ses", "msg", "inp", "call", "perm", "req")


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_id(prefix: str, now_ms: int | None = None) -> str:
    """Return ``<prefix>_<26 chars>``, monotonic within this process."""
    global _last_ms, _last_rand
    if now_ms is not None:  # explicit time: deterministic, outside the monotonic sequence
        return f"{prefix}_{_encode(now_ms, 10)}{_encode(int.from_bytes(os.urandom(10), 'big'), 16)}"
    with _lock:
        ms = int(time.time() * 1000)
        if ms <= _last_ms:
            ms = _last_ms
            rand = _last_rand + 1
        else:
            rand = int.from_bytes(os.urandom(10), "big") >> 1  # room to increment
        _last_ms, _last_rand = ms, rand
    return f"{prefix}_{_encode(ms, 10)}{_encode(rand, 16)}"


def session_id() -> str:
    return new_id("ses")


def message_id() -> str:
    return new_id("msg")


def timestamp_ms(identifier: str) -> int:
    """The creation time encoded in an id made by :func:`new_id`."""
    body = identifier.split("_", 1)[1][:10]
    value = 0
    for ch in body:
        value = value * 32 + _ALPHABET.index(ch)
    return value


def derived_id(identifier: str, salt: str) -> str:
    """A stable id for a copy of ``identifier`` (a fork's copy of a message): same prefix and time, new tail."""
    import hashlib

    prefix, _, body = identifier.partition("_")
    digest = int.from_bytes(hashlib.sha256(f"{salt}:{identifier}".encode()).digest()[:10], "big")
    return f"{prefix}_{body[:10]}{_encode(digest, 16)}"
