"""Fold a session's durable log plus live deltas into an ordered list of blocks: ``Transcript`` and ``fold``.

Pure Python (no Textual) so it is tested with hand-built event lists. Durable
events decide *what* blocks exist and their final values; live deltas only fill
in text while a fragment, tool or compaction is open, and the matching durable
``ended``/settled event replaces what they filled. So reopening a session (a
fold of the log alone) shows exactly the blocks that were on screen.

Whether anything is running comes only from :meth:`Transcript.set_active` (the
coordinator's ``active()``); an open step, running tool or scheduled retry in a
log that is not active is shown as interrupted history.

Durable events fold by family, one module each (``session``, ``inbox``,
``permissions``, ``compaction``, ``steps``, ``messages``, ``tools``, ``hooks``), as mixins
over ``state.TranscriptState``; ``_folders`` maps each event class to its
family's handler, and ``apply_delta`` each live delta to its family's. Every
block is found again by its typed :class:`BlockKey`.

The event models are imported inside the functions that fold, here and in the
family modules: this package is on the path to the first frame (a new, empty
transcript), the models' module imports pydantic (~60 ms), and nothing is
folded before the core is open.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from agent_tui.tui.transcript.compaction import CompactionFold
from agent_tui.tui.transcript.hooks import HookFold
from agent_tui.tui.transcript.inbox import InboxFold
from agent_tui.tui.transcript.messages import MessageFold
from agent_tui.tui.transcript.permissions import PermissionFold
from agent_tui.tui.transcript.segments import SegmentFold
from agent_tui.tui.transcript.session import SessionFold
from agent_tui.tui.transcript.steps import StepFold
from agent_tui.tui.transcript.tools import ToolFold

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev
    from agent_tui.tui.transcript_blocks import Block


class Transcript(
    SessionFold, InboxFold, PermissionFold, CompactionFold, StepFold, MessageFold, ToolFold, HookFold, SegmentFold
):
    """A session's blocks, pending inputs, asks and facts; its fields are ``TranscriptState``'s."""

    def apply(self, stored: ev.StoredEvent) -> None:
        """Fold one durable event (events at or below ``head_seq`` are ignored)."""
        if stored.seq <= self.head_seq:
            return
        self.head_seq = stored.seq
        self.version += 1
        if any(start <= stored.seq < end for start, end in self.hidden) and not _is_fact(stored.event):
            return  # rewound away: the events stay in the log, the transcript does not show them
        self._fold(stored.event, stored.seq, stored.created)

    def _fold(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        fold_one = _folders().get(type(event))
        if fold_one is not None:
            fold_one(self, event, seq, created)

    def apply_delta(self, delta: ev.LiveEvent) -> Block | None:
        """Fold one live delta; returns the block it changed (None when stale)."""
        from agent_tui.core.api import events as ev  # see the module docstring

        block: Block | None
        if isinstance(delta, (ev.TextDelta, ev.ReasoningDelta, ev.ToolInputDelta)):
            self.streamed_chars += len(delta.delta)
        match delta:
            case ev.TextDelta() | ev.ReasoningDelta():
                block = self._text_delta(delta)
            case ev.ToolInputStarted() | ev.ToolInputDelta() | ev.ToolOutputDelta():
                block = self._tool_delta(delta)
            case ev.CompactionDelta():
                block = self._compaction_delta(delta)
            case _:
                return None
        if block is not None:
            self._changed(block)
        return block


def _is_fact(event: ev.DurableEvent) -> bool:
    """Names and selections stay true after a rewind (the session row keeps them too)."""
    from agent_tui.core.api import events as ev  # see the module docstring

    return isinstance(
        event, (ev.SessionCreated, ev.SessionRenamed, ev.AgentSelected, ev.ModelSelected, ev.SessionMoved)
    )


Folder = Callable[[Transcript, Any, int, int], None]


@cache
def _folders() -> dict[type, Folder]:
    """Each durable event class the transcript folds, and its family's handler (built at the first fold)."""
    from agent_tui.core.api import events as ev  # see the module docstring

    T = Transcript
    families: list[tuple[Folder, tuple[type, ...]]] = [
        (T._on_session, (ev.SessionCreated, ev.SessionRenamed, ev.AgentSelected, ev.ModelSelected, ev.SessionMoved)),
        (
            T._on_inbox,
            (
                ev.PromptAdmitted,
                ev.PromptPromoted,
                ev.QueuePaused,
                ev.QueueReordered,
                ev.PromptWithdrawn,
                ev.InstructionsUpdated,
            ),
        ),
        (T._on_permission, (ev.PermissionAsked, ev.PermissionReplied)),
        (T._on_compaction, (ev.CompactionAdmitted, ev.CompactionStarted, ev.CompactionEnded, ev.CompactionFailed)),
        (T._on_step, (ev.StepStarted, ev.StepEnded, ev.StepFailed, ev.RetryScheduled)),
        (T._on_fragment, (ev.TextStarted, ev.ReasoningStarted, ev.TextEnded, ev.ReasoningEnded)),
        (
            T._on_tool,
            (ev.ToolCalled, ev.ShellAdmitted, ev.ShellEnded, ev.WorkspaceSnapshotted, ev.ToolSucceeded, ev.ToolFailed),
        ),
        (T._on_rewind, (ev.SessionRewound, ev.RewindUndone)),
        (T._on_hook, (ev.HookRan,)),
        (T._on_execution, (ev.ExecutionFailed, ev.ExecutionSucceeded, ev.ExecutionInterrupted)),
    ]
    return {kind: handler for handler, kinds in families for kind in kinds}


def fold(events: list[ev.StoredEvent], is_active: bool = False) -> Transcript:
    transcript = Transcript(is_active=is_active)
    for stored in events:
        transcript.apply(stored)
    return transcript
