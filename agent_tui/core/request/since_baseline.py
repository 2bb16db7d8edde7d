"""What happened to a session since its instruction baseline: a compaction (rebaseline) and the
chronological updates the model has been given on top of the baseline (their growth, reference 001's
operational metrics)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SinceBaseline:
    compacted: bool
    """A compaction completed: the next look writes a fresh baseline."""
    updates: int
    """The chronological instruction updates published since the baseline."""
    update_chars: int
    """Their total size in characters."""


async def since_baseline(store: Any, session_id: str, baseline_seq: int) -> SinceBaseline:
    """One read of the messages after the baseline (already needed to see a compaction)."""
    rows = await store.messages(session_id, after=baseline_seq)
    compacted = any(m.kind == "compaction" and m.data.get("state") == "ended" for m in rows)
    # an instruction update is a system message no one else signed (hooks and imports name themselves)
    updates = [m for m in rows if m.kind == "system" and not m.data.get("source")]
    return SinceBaseline(compacted, len(updates), sum(len(m.data.get("text", "")) for m in updates))
