"""Modules the first frame does without, imported in a thread when first wanted.

The block widgets pull in Textual's ``Markdown`` (markdown-it, pygments): ~50 ms
that a new session or the picker does not need before it paints. Importing them
in a thread keeps the event loop painting and echoing keys meanwhile.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from types import ModuleType


class LazyModule:
    """One module, imported at most once, off the event loop."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.module: ModuleType | None = None  # set once the import has finished

    async def load(self) -> ModuleType:
        module = self.module
        if module is None:
            module = self._imported()
            if module is None:
                module = await asyncio.to_thread(importlib.import_module, self.name)
            self.module = module
        return module  # concurrent loads wait on the import system's module lock

    def _imported(self) -> ModuleType | None:
        """The module if something imported it already (completely: not mid-import in a thread)."""
        module = sys.modules.get(self.name)
        return None if module is None or getattr(module.__spec__, "_initializing", False) else module


BLOCK_WIDGETS = LazyModule("agent_tui.tui.widgets.block_factory")
