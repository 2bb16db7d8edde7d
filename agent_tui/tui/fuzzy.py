"""Fuzzy path matching fast enough for a keystroke over 100 000 paths.

A query matches a path when its characters appear in order (case-insensitive).
The test is one compiled regex per query whose every step is possessive
(``[^c]*+c``), so it never backtracks, run by ``filter`` in C. Paths are kept
shortest first, so the matches come out in that order too, and each longer
query (from three characters) narrows the previous query's matches instead
of the whole list.

Ranking: the query whole at the start of the file name, then inside the name,
then anywhere in the path, then scattered in the name, then anywhere; shorter paths first within a tier.
Only the shortest few thousand matches (plus every name match) are ranked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from itertools import islice

RANK_AT_MOST = 3000
NARROW_FROM = 3
"""Shorter queries match most paths: a list of them would cost more than it saves."""


@lru_cache(maxsize=64)
def _subsequence(query: str) -> Callable[..., object]:
    steps = [re.escape(query[0])] + [f"[^{re.escape(c)}]*+{re.escape(c)}" for c in query[1:]]
    return re.compile("".join(steps)).search


def _rank(path: str, query: str) -> tuple[int, int, str]:
    name_at = path.rfind("/", 0, len(path) - 1) + 1  # a folder ends in "/"
    found = path.find(query, name_at)
    if found == name_at:
        rest = path[name_at + len(query) :]
        tier = 0 if not rest or rest[0] in "./" else 1  # the whole name (but its extension) first
    elif found >= 0:
        tier = 2
    elif query in path:
        tier = 3
    elif _subsequence(query)(path, name_at):
        tier = 4  # scattered within the name
    else:
        tier = 5
    return tier, len(path), path


class PathMatcher:
    """Ranks ``paths`` (``dir/`` for folders) against queries; not thread-safe, one user at a time."""

    def __init__(self, paths: Sequence[str]) -> None:
        self._paths = sorted(paths, key=lambda p: (len(p), p))
        self._lower = [p.lower() for p in self._paths]
        self._original = dict(zip(self._lower, self._paths, strict=True))
        self._blob = "\n".join(self._lower)
        self._last: tuple[str, list[str]] = ("", self._lower)

    def _named(self, q: str) -> Iterator[str]:
        """Paths with ``q`` whole in their name, shortest first: one scan of the joined list in C."""
        blob = self._blob
        for match in re.finditer(re.escape(q) + r"[^/\n]*/?$", blob, re.M):
            start = blob.rfind("\n", 0, match.start()) + 1
            yield blob[start : match.end()]

    def __len__(self) -> int:
        return len(self._paths)

    def search(self, query: str, limit: int = 50) -> list[str]:
        q = query.lower()
        if not q:
            return self._paths[:limit]
        last_q, last = self._last
        pool = last if last_q and q.startswith(last_q) else self._lower
        if len(q) < NARROW_FROM:  # most paths match: rank the shortest, keep nothing to narrow
            matches = list(islice(filter(_subsequence(q), pool), RANK_AT_MOST))
            self._last = ("", self._lower)
        else:
            matches = list(filter(_subsequence(q), pool))
            self._last = (q, matches)
        if len(matches) >= RANK_AT_MOST:  # and the shortest paths with the query in their name
            matches = list(dict.fromkeys([*islice(self._named(q), RANK_AT_MOST), *matches[:RANK_AT_MOST]]))
        if q.endswith("/"):  # going into a folder: what is in it, not the folder again
            matches = [p for p in matches if p != q]
        best = sorted(matches, key=lambda p: _rank(p, q))[:limit]
        return [self._original[p] for p in best]
