"""``--api-key`` without leaving the key in ``ps``; ``--api-key-file`` to never put it there.

A process's command line (``/proc/PID/cmdline``) is readable by every user of
the machine, its environment only by its owner. So the key should come from
``AGENT_TUI_API_KEY`` or a file. When it comes from ``--api-key`` anyway, the
launch overwrites the value in the memory the kernel shows as the command line
(Linux: ``arg_start``..``arg_end`` from ``/proc/self/stat``) and prints one
warning saying how to avoid the window in which it was visible. Stdlib only,
imported only when one of the two flags is used.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

FLAG = "--api-key"
_SPELLINGS = frozenset({"--api-k", "--api-ke", FLAG})
"""argparse accepts an unambiguous prefix (``--api`` is also ``--api-base``)."""
ENV = "AGENT_TUI_API_KEY"


def given_keys(words: Sequence[str]) -> list[str]:
    """The values given to ``--api-key`` in ``words`` (``--api-key K`` or ``--api-key=K``)."""
    keys: list[str] = []
    for index, word in enumerate(words):
        name, equals, value = word.partition("=")
        if name not in _SPELLINGS:
            continue
        if equals:
            keys.append(value)
        elif index + 1 < len(words):
            keys.append(words[index + 1])
    return [key for key in keys if key]


def _arg_area(stat: str) -> tuple[int, int]:
    """``(arg_start, arg_end)``: fields 48 and 49 of ``/proc/self/stat`` (the name, field 2, may hold spaces)."""
    fields = stat.rpartition(")")[2].split()
    return int(fields[45]), int(fields[46])  # fields[0] is field 3


def _key_spans(area: bytes, keys: set[bytes]) -> list[tuple[int, int]]:
    """``(offset, length)`` of each key in the NUL-separated arguments: a whole argument, or the
    value of ``--api-key=KEY`` (never a piece of another word)."""
    spans, offset = [], 0
    for word in area.split(b"\0"):
        name, equals, value = word.partition(b"=")
        if word in keys:
            spans.append((offset, len(word)))
        elif equals and name.decode(errors="replace") in _SPELLINGS and value in keys:
            spans.append((offset + len(name) + 1, len(value)))
        offset += len(word) + 1
    return spans


def scrub_cmdline(keys: Sequence[str]) -> bool:
    """Overwrite every key in this process's command line as ``ps`` shows it; whether none is left."""
    proc = Path("/proc/self")
    wanted = {key.encode() for key in keys}
    try:
        start, end = _arg_area((proc / "stat").read_text())
        import ctypes

        for offset, length in _key_spans(ctypes.string_at(start, end - start), wanted):
            ctypes.memset(start + offset, ord("x"), length)
        shown = (proc / "cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError, IndexError):
        return False
    return not any(word in wanted or word.partition(b"=")[2] in wanted for word in shown)


def hide_given_key(words: Sequence[str]) -> None:
    """Scrub ``--api-key``'s value from the command line and say, once, how to avoid passing it."""
    keys = given_keys(words)
    if not keys:
        return
    hidden = scrub_cmdline(keys)
    visible = "was visible to other users in ps until now" if hidden else "is visible to other users in ps"
    print(
        f"agent-tui: warning: the --api-key value {visible}; set {ENV} or use --api-key-file PATH instead",
        file=sys.stderr,
        flush=True,
    )


def read_key_file(path: str) -> str:
    """The key in ``path`` (surrounding whitespace dropped); raises ``ValueError`` with one clear line."""
    try:
        key = Path(path).expanduser().read_text().strip()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read --api-key-file {path}: {getattr(error, 'strerror', None) or error}") from None
    if not key:
        raise ValueError(f"--api-key-file {path} is empty")
    return key
