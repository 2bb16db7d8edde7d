"""Finding a chunk's old lines in a file, from strict to forgiving.

Levels, each tried over the whole search range before the next: exact;
ignoring trailing whitespace; ignoring surrounding whitespace; with unicode
punctuation normalised (dashes, quotes, non-breaking and other odd spaces)
as well. Same order as Codex's ``seek_sequence``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\uff07", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\uff02", '"'),
        **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
    }
)


def normalise(line: str) -> str:
    return line.strip().translate(_PUNCTUATION)


_LEVELS: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    str.rstrip,
    str.strip,
    normalise,
)


def _find(lines: Sequence[str], pattern: Sequence[str], start: int, stop: int, key: Callable[[str], str]) -> int | None:
    """First index in [start, stop] where ``pattern`` matches under ``key``."""
    want = [key(p) for p in pattern]
    first = want[0]
    n = len(want)
    cache: dict[int, str] = {}

    def at(i: int) -> str:
        value = cache.get(i)
        if value is None:
            value = cache[i] = key(lines[i])
        return value

    for i in range(start, stop + 1):
        if at(i) != first:
            continue
        if all(at(i + j) == want[j] for j in range(1, n)):
            return i
    return None


def seek(lines: Sequence[str], pattern: Sequence[str], start: int, end_of_file: bool = False) -> int | None:
    """Index where ``pattern`` starts at or after ``start``; with ``end_of_file``
    the match at the very end of the file is preferred."""
    if not pattern:
        return start
    last = len(lines) - len(pattern)
    if last < 0:
        return None
    if end_of_file and last >= start:
        for key in _LEVELS:
            if _find(lines, pattern, last, last, key) is not None:
                return last
    for key in _LEVELS:
        found = _find(lines, pattern, start, last, key)
        if found is not None:
            return found
    return None
