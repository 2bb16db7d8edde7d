"""What ``@`` completes: the project's paths, and ``NAME:path`` in each configured reference folder.

A query naming a reference (``docs:api``) searches that folder's own :class:`FileIndex`
(made on first use); any other query searches the project, with the reference names
that start with it offered first (``docs:``, accepted without a space to go on into it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from agent_tui.tui.file_index import FileIndex
from agent_tui.vocab.clock import Clock


class MentionIndex:
    def __init__(self, location: str | Path, references: Mapping[str, Path], clock: Clock | None = None) -> None:
        self._clock = clock
        self.project = FileIndex(location, clock=clock)
        self._roots = dict(references)
        self._references: dict[str, FileIndex] = {}

    async def search(self, query: str, limit: int = 50) -> list[str]:
        name, colon, rest = query.partition(":")
        if colon and name in self._roots:
            index = self._references.get(name)
            if index is None:
                index = self._references[name] = FileIndex(self._roots[name], clock=self._clock)
            return [f"{name}:{path}" for path in await index.search(rest, limit)]
        names = [f"{name}:" for name in sorted(self._roots) if name.startswith(query)]
        return [*names, *await self.project.search(query, limit)][:limit]
