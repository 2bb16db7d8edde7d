"""Rewind a session to just before one of its prompts, and take the last rewind back.

The conversation part is one durable ``session.rewound`` event (its projector
hides what follows the boundary); the files part restores the location to the
snapshot taken before the first tool after that prompt, after snapshotting the
present so an undo can bring it back. Everything is checked before anything
changes: an unknown message, a running session, a missing snapshot, a tool
call that changed files with no snapshot to undo it (``restore_plan``) each
refuse with one line and leave the log and the files as they were. What a
rewind that goes ahead cannot restore is named in its result, never passed
over as "nothing changed".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from agent_tui.core.errors import SessionBusy, StoreError
from agent_tui.core.history.lineage import lineage
from agent_tui.core.history.restore_plan import RestorePlan, Unrestorable, restore_plan
from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.log.records import MessageRecord, SessionRecord
from agent_tui.core.run import lease
from agent_tui.core.run.executor import Executor
from agent_tui.core.store.store import Store
from agent_tui.core.workspace.file_restore import FileStores
from agent_tui.core.workspace.snapshots import WorkspaceSnapshots
from agent_tui.vocab.kinds import RewindMode

_CONVERSATION_MOVES = (ev.PromptPromoted.TYPE, ev.StepStarted.TYPE)


class UnknownMessage(StoreError):
    """The message id names no visible message of the session."""


class RewindRefused(StoreError):
    """The rewind (or its undo) cannot be done now; the message says why."""


class RewindPoint(BaseModel):
    """A prompt the session can be rewound to."""

    model_config = ConfigDict(frozen=True)
    message_id: str
    seq: int
    created: int
    text: str


class FilesPreview(BaseModel):
    """What a files rewind would change: the files, and the diff from now to the snapshot; what it could
    not restore, and (when it would be refused) why."""

    model_config = ConfigDict(frozen=True)
    changed: list[ev.ChangedFile]
    diff: str = ""
    unrestorable: list[Unrestorable] = []
    refusal: str | None = None


class RewindResult(BaseModel):
    model_config = ConfigDict(frozen=True)
    session_id: str
    seq: int
    """The seq of the rewind (or undo) event."""
    message_id: str | None
    mode: RewindMode | None
    prompt: str | None
    """The chosen prompt's text, for the prompt box (None for an undo)."""
    changed: list[ev.ChangedFile]
    unrestorable: list[Unrestorable] = []
    """Tool calls after the prompt whose file changes this rewind left as they were, and why."""
    note: str | None = None


class RewindState(BaseModel):
    """What a view folding the log needs: the ranges rewinds hide, and every rewind and undo it will meet."""

    model_config = ConfigDict(frozen=True)
    hidden: list[tuple[int, int]]
    """``[boundary, rewind)`` per conversation rewind still in force."""
    rewinds: list[int]
    """The seq of every rewind, in force or undone."""
    undone: list[int]
    """The seqs of the rewinds that were undone."""


def rewind_state(events: list[ev.StoredEvent]) -> RewindState:
    """From a session's rewind and undo events (others are ignored)."""
    undone = [e.event.rewind_seq for e in events if isinstance(e.event, ev.RewindUndone)]
    rewinds = [(e.seq, e.event) for e in events if isinstance(e.event, ev.SessionRewound)]
    hidden = [(rewind.boundary_seq, seq) for seq, rewind in rewinds if rewind.conversation and seq not in undone]
    return RewindState(hidden=hidden, rewinds=[seq for seq, _ in rewinds], undone=undone)


def prompt_of(message: MessageRecord) -> str:
    return ev.prompt_text(message.data["prompt"])


def points(messages: list[MessageRecord]) -> list[RewindPoint]:
    """The visible prompts, newest first."""
    users = [m for m in messages if m.kind == "user"]
    return [RewindPoint(message_id=m.id, seq=m.seq, created=m.created, text=prompt_of(m)) for m in reversed(users)]


class Rewinder:
    def __init__(self, store: Store, executor: Executor, snapshots: WorkspaceSnapshots) -> None:
        self._store = store
        self._executor = executor
        self._files = FileStores(snapshots)

    async def target(self, session: SessionRecord, message_id: str) -> MessageRecord:
        message = await self._store.message_anywhere(message_id)
        if message is None:
            raise UnknownMessage(f"unknown message {message_id} in session {session.id}")
        if message.session_id != session.id:
            raise UnknownMessage(f"message {message_id} belongs to session {message.session_id}, not {session.id}")
        if message.kind != "user":
            raise RewindRefused(
                f"message {message_id} is a {message.kind} message; rewind to a prompt (a user message)"
            )
        return message

    async def preview(self, session: SessionRecord, message_id: str) -> FilesPreview:
        """Which files a files rewind to ``message_id`` would change, and how (nothing is changed)."""
        message = await self.target(session, message_id)
        coverage = await self._plan(session, message.seq)
        refusal = coverage.refusal()
        if coverage.point is None or refusal is not None:
            return FilesPreview(changed=[], unrestorable=coverage.named(), refusal=refusal)
        changed, diff = await self._files.preview(Path(session.location), coverage.point)
        return FilesPreview(changed=_changed(changed), diff=diff, unrestorable=coverage.named())

    async def rewind(self, session: SessionRecord, message_id: str, mode: RewindMode) -> RewindResult:
        message = await self.target(session, message_id)
        held = await self._hold(session.id)
        try:
            files, coverage = None, RestorePlan(point=None, unrestorable=[], outside=[])
            if mode != RewindMode.CONVERSATION:
                coverage = await self._plan(session, message.seq)
                if (refusal := coverage.refusal()) is not None:
                    raise RewindRefused(refusal)
                if coverage.point is not None:
                    point = coverage.point
                    before, changes = await self._files.restore(Path(session.location), point, _pin(session))
                    files = ev.FilesRestored(target=point[0], before=before, changed=_changed(changes))
            stored = await self._store.publish(
                session.id,
                ev.SessionRewound(
                    message_id=message.id, boundary_seq=message.seq, conversation=mode != RewindMode.FILES, files=files
                ),
            )
        finally:
            held.release()
        return RewindResult(
            session_id=session.id,
            seq=stored.seq,
            message_id=message.id,
            mode=mode,
            prompt=prompt_of(message),
            changed=files.changed if files else [],
            unrestorable=coverage.named(),
            note=coverage.note() if mode != RewindMode.CONVERSATION else None,
        )

    async def undo(self, session: SessionRecord) -> RewindResult:
        rewound = await self._last_rewind(session)
        held = await self._hold(session.id)
        try:
            files = None
            event = rewound.event
            assert isinstance(event, ev.SessionRewound)
            if event.files is not None:
                before, changes = await self._files.restore(Path(session.location), [event.files.before], _pin(session))
                files = ev.FilesRestored(target=event.files.before, before=before, changed=_changed(changes))
            stored = await self._store.publish(session.id, ev.RewindUndone(rewind_seq=rewound.seq, files=files))
        finally:
            held.release()
        return RewindResult(
            session_id=session.id,
            seq=stored.seq,
            message_id=event.message_id,
            mode=None,
            prompt=None,
            changed=files.changed if files else [],
        )

    async def state(self, session_id: str, ancestry: list[tuple[str, int]]) -> RewindState:
        kinds = [ev.SessionRewound.TYPE, ev.RewindUndone.TYPE]
        found: list[ev.StoredEvent] = []
        for ancestor, upto in ancestry:  # what was in force in each ancestor when it gave its history
            found += [e for e in await self._store.events_of_type(ancestor, kinds) if e.seq <= upto]
        return rewind_state(found + await self._store.events_of_type(session_id, kinds))

    async def last_undoable(self, session: SessionRecord) -> ev.StoredEvent | None:
        try:
            return await self._last_rewind(session)
        except RewindRefused:
            return None

    async def _last_rewind(self, session: SessionRecord) -> ev.StoredEvent:
        found = await self._store.events_of_type(
            session.id, [ev.SessionRewound.TYPE, ev.RewindUndone.TYPE], limit=1, newest_first=True
        )
        if not found or not isinstance(found[0].event, ev.SessionRewound):
            raise RewindRefused(f"session {session.id} has no rewind to undo")
        moved = await self._store.events_of_type(session.id, list(_CONVERSATION_MOVES), after=found[0].seq, limit=1)
        if moved:
            raise RewindRefused(f"session {session.id} has moved on since its last rewind; it can no longer be undone")
        return found[0]

    async def _plan(self, session: SessionRecord, seq: int) -> RestorePlan:
        """From the tool calls and snapshots after ``seq`` (and the reasons given before it): a fork's
        copied prompts find theirs in its ancestors' logs."""
        kinds = [ev.ToolCalled.TYPE, ev.ToolFailed.TYPE, ev.WorkspaceSnapshotted.TYPE]
        found: list[tuple[bool, ev.DurableEvent]] = []
        for sid, upto in [*await lineage(self._store, session.id), (session.id, None)]:
            found += [
                (e.seq > seq, e.event)
                for e in await self._store.events_of_type(sid, kinds)
                if upto is None or e.seq <= upto
            ]
        return restore_plan(found, Path(session.location))

    async def _hold(self, session_id: str) -> Any:
        """The session's lease for the rewind: refused while this or another process runs it."""
        if session_id in self._executor.active():
            raise SessionBusy(f"session {session_id} is running; interrupt it before rewinding")
        return await lease.acquire(session_id)


def _pin(session: SessionRecord) -> str:
    """The name that keeps a restore's state-before in the snapshot store until the session is deleted."""
    return f"{session.id}/restore-{ids.message_id()}"


def _changed(changes: list[Any]) -> list[ev.ChangedFile]:
    return [ev.ChangedFile(path=c.path, change=c.change) for c in changes]
