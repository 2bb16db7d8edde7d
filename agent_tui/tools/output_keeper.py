"""Bounded capture of command output: head and tail for the model, all of it on disk.

Memory stays O(limits) however much a command prints: the first 50 KiB and a
rolling last 50 KiB are kept; once the output outgrows the limits everything
is streamed to a spill file whose path the model is told.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import BinaryIO

from agent_tui.tools.private_files import open_private

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


class OutputKeeper:
    def __init__(self, spill_path: Path, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> None:
        self.spill_path = spill_path
        self.max_lines, self.max_bytes = max_lines, max_bytes
        self.total_bytes = 0
        self.total_lines = 0
        self._start = bytearray()
        self._tail = bytearray()
        self._spill: BinaryIO | None = None

    @property
    def overflowed(self) -> bool:
        return self._spill is not None

    async def feed(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        self.total_lines += chunk.count(b"\n")
        if len(self._start) < self.max_bytes:
            self._start += chunk[: self.max_bytes - len(self._start)]
        self._tail += chunk
        if self._spill is None and (self.total_bytes > self.max_bytes or self.total_lines > self.max_lines):
            self._spill = await asyncio.to_thread(self._open_spill)
        elif self._spill is not None:
            await asyncio.to_thread(self._spill.write, chunk)
        if len(self._tail) > 2 * self.max_bytes:
            del self._tail[: len(self._tail) - self.max_bytes]

    def _open_spill(self) -> BinaryIO:
        """Called once, while ``_tail`` still holds everything printed so far."""
        handle = open_private(self.spill_path)  # a command's output may hold secrets
        handle.write(self._tail)
        return handle

    async def close(self) -> None:
        if self._spill is not None:
            await asyncio.to_thread(self._spill.close)

    def text(self) -> str:
        """All output if it fits, else head + an omission notice naming the spill file + tail."""
        if not self.overflowed:
            return bytes(self._tail).decode("utf-8", errors="replace")
        half_lines, half_bytes = self.max_lines // 2, self.max_bytes // 2
        head = _first_lines(bytes(self._start[:half_bytes]), half_lines)
        tail = _last_lines(bytes(self._tail[-half_bytes:]), half_lines)
        shown_lines = head.count(b"\n") + tail.count(b"\n")
        omitted_bytes = self.total_bytes - len(head) - len(tail)
        omitted_lines = max(self.total_lines - shown_lines, 0)
        notice = (
            f"\n… [{omitted_lines} lines ({omitted_bytes} bytes) omitted; the full output "
            f"({self.total_lines} lines, {self.total_bytes} bytes) is in {self.spill_path}] …\n"
        )
        return head.decode("utf-8", errors="replace") + notice + tail.decode("utf-8", errors="replace")


def _first_lines(data: bytes, count: int) -> bytes:
    end = 0
    for _ in range(count):
        newline = data.find(b"\n", end)
        if newline < 0:
            return data[:end] if end else data
        end = newline + 1
    return data[:end]


def _last_lines(data: bytes, count: int) -> bytes:
    first_newline = data.find(b"\n")
    if 0 <= first_newline < len(data) - 1:
        data = data[first_newline + 1 :]
    start = len(data)
    for _ in range(count):
        newline = data.rfind(b"\n", 0, start - 1 if start else 0)
        if newline < 0:
            return data
        start = newline + 1
    return data[start:]
