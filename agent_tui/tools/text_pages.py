"""Serving one page of lines from a text file of any size.

Finding line N means counting newlines up to it, never past it, in bounded
chunks; holes of sparse files are skipped with ``SEEK_DATA`` (a hole holds no
newline). Line starts found on the way are cached per file version, so
reading page after page stays proportional to the page, not the file.
"""

from __future__ import annotations

import errno
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass

SCAN_CHUNK = 1 << 20
READ_CHUNK = 64 * 1024
MAX_LINES = 2000
MAX_PAGE_BYTES = 50 * 1024
MAX_LINE_CHARS = 2000
_MAX_LINE_BYTES = MAX_LINE_CHARS * 4
_SEEK_DATA = getattr(os, "SEEK_DATA", None)

FileKey = tuple[int, int, int, int]
_CHECKPOINTS: OrderedDict[FileKey, dict[int, int]] = OrderedDict()
_MAX_FILES = 64
_MAX_POINTS = 4096
_LOCK = threading.Lock()


def file_key(st: os.stat_result) -> FileKey:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _nearest(key: FileKey, line: int) -> tuple[int, int]:
    """The cached line start at or before ``line``: ``(line, byte offset)``."""
    with _LOCK:
        points = _CHECKPOINTS.get(key)
        if points is None:
            return 1, 0
        _CHECKPOINTS.move_to_end(key)
        best = max(n for n in points if n <= line)
        return best, points[best]


def _remember(key: FileKey, line: int, pos: int) -> None:
    with _LOCK:
        points = _CHECKPOINTS.get(key)
        if points is None:
            points = _CHECKPOINTS[key] = {1: 0}
            while len(_CHECKPOINTS) > _MAX_FILES:
                _CHECKPOINTS.popitem(last=False)
        if len(points) < _MAX_POINTS:
            points[line] = pos


def _data_from(fd: int, pos: int, size: int) -> int:
    """The first position >= pos that may hold data (``size`` if only a hole is left)."""
    if _SEEK_DATA is None or pos >= size:
        return pos
    try:
        return os.lseek(fd, pos, _SEEK_DATA)
    except OSError as error:
        if error.errno == errno.ENXIO:
            return size
        return pos


def line_start(fd: int, size: int, key: FileKey, line: int) -> tuple[int | None, int]:
    """Byte offset where 1-based ``line`` starts, or ``(None, line_count)`` past the end."""
    current, pos = _nearest(key, line)
    while current < line:
        pos = _data_from(fd, pos, size)
        chunk = os.pread(fd, min(SCAN_CHUNK, size - pos), pos) if pos < size else b""
        if not chunk:
            return None, _count_at_end(fd, size, current)
        need = line - current
        found = chunk.count(b"\n")
        if found < need:
            current += found
            pos += len(chunk)
            continue
        cut = -1
        for _ in range(need):
            cut = chunk.index(b"\n", cut + 1)
        pos += cut + 1
        current = line
    if pos >= size and line > 1:
        return None, _count_at_end(fd, size, line)
    _remember(key, line, pos)
    return pos, line


def _count_at_end(fd: int, size: int, current: int) -> int:
    """Lines in the file, given that ``current`` is 1 + the newlines counted to EOF."""
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return current - 1
    return current


@dataclass
class Line:
    text: str
    cut_bytes: int = 0


class LineReader:
    """Reads lines from ``pos``; a line longer than the cap keeps its head only."""

    def __init__(self, fd: int, pos: int, size: int) -> None:
        self.fd, self.size = fd, size
        self._buf = b""
        self._at = 0
        self._end = pos

    @property
    def position(self) -> int:
        """File offset of the first byte not yet returned."""
        return self._end - (len(self._buf) - self._at)

    def _fill(self) -> bool:
        chunk = os.pread(self.fd, READ_CHUNK, self._end)
        self._end += len(chunk)
        self._buf = self._buf[self._at :] + chunk
        self._at = 0
        return bool(chunk)

    def _skip_rest_of_line(self) -> int:
        """Skip past the next newline (or to EOF) without keeping it; returns bytes skipped."""
        skipped = 0
        self._buf, self._at = b"", 0
        while True:
            data = _data_from(self.fd, self._end, self.size)
            skipped += data - self._end
            self._end = data
            chunk = os.pread(self.fd, SCAN_CHUNK, self._end) if data < self.size else b""
            if not chunk:
                return skipped
            self._end += len(chunk)
            newline = chunk.find(b"\n")
            if newline >= 0:
                self._buf = chunk[newline + 1 :]
                return skipped + newline
            skipped += len(chunk)

    def next_line(self) -> Line | None:
        while True:
            newline = self._buf.find(b"\n", self._at)
            if newline >= 0:
                raw = self._buf[self._at : newline]
                self._at = newline + 1
                line = _decode(raw[:_MAX_LINE_BYTES])
                line.cut_bytes += max(len(raw) - _MAX_LINE_BYTES, 0)
                return line
            pending = len(self._buf) - self._at
            if pending > _MAX_LINE_BYTES:
                line = _decode(self._buf[self._at : self._at + _MAX_LINE_BYTES])
                line.cut_bytes += pending - _MAX_LINE_BYTES + self._skip_rest_of_line()
                return line
            if not self._fill():
                if not pending:
                    return None
                raw = self._buf[self._at :]
                self._buf, self._at = b"", 0
                return _decode(raw)


def _decode(raw: bytes) -> Line:
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    text = raw.decode("utf-8", errors="replace")
    if len(text) <= MAX_LINE_CHARS:
        return Line(text)
    kept = text[:MAX_LINE_CHARS]
    return Line(kept, cut_bytes=len(raw) - len(kept.encode("utf-8", errors="replace")))


@dataclass
class Page:
    first: int
    lines: list[Line]
    next_offset: int | None
    """Line to continue from, or None at the end of the file."""
    byte_capped: bool


def read_page(fd: int, size: int, key: FileKey, offset: int, limit: int) -> Page | int:
    """One page of at most ``limit`` lines / 50 KiB; an int is the line count when past the end."""
    pos, found = line_start(fd, size, key, offset)
    if pos is None:
        return found
    reader = LineReader(fd, pos, size)
    lines: list[Line] = []
    used = 0
    byte_capped = False
    while len(lines) < limit:
        before = reader.position
        line = reader.next_line()
        if line is None:
            break
        cost = len(line.text.encode("utf-8", errors="replace")) + 16
        if lines and used + cost > MAX_PAGE_BYTES:
            reader = LineReader(fd, before, size)
            byte_capped = True
            break
        used += cost
        lines.append(line)
    after = reader.position
    next_offset = offset + len(lines) if after < size else None
    if next_offset is not None:
        _remember(key, next_offset, after)
    return Page(first=offset, lines=lines, next_offset=next_offset, byte_capped=byte_capped)
