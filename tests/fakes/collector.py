"""A double for the interpreter's garbage collector, as ``tui.gc_policy.QuietCollector`` sees it."""

from __future__ import annotations


class FakeCollector:
    """Pending young-generation passes, collections run, and whether collection is on."""

    def __init__(self) -> None:
        self.pending = 0
        self.collections = 0
        self.enabled = True

    def collect(self) -> None:
        self.collections += 1
        self.pending = 0
