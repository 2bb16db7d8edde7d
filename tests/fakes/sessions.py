"""FakeSessions: an in-memory Sessions facade that serves stored logs and records calls.

It speaks the facade's contract (``log`` replays then emits one synced marker then
tails; ``subscribe`` carries live deltas) so Pilot tests drive the real widgets
while the test plays the runner by publishing events.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from agent_tui.core.log import events as ev
from agent_tui.core.api import EventRejected, UnknownInput, UnknownSession
from agent_tui.tui.transcript_model import fold
from agent_tui.vocab.kinds import Delivery, InterruptReason, PermissionReply

from tests.fakes.logs import LogBuilder


@dataclass
class FakeSynced:
    seq: int | None


@dataclass
class FakeSessionRecord:
    """The fields of ``SessionRecord`` / ``SessionSummary`` the TUI reads."""

    id: str
    title: str | None
    location: str
    updated: int
    message_count: int
    last_message: str | None = None
    agent: str = "build"
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    head_seq: int = 0


@dataclass
class FakeInboxRecord:
    id: str
    kind: str
    delivery: str | None
    prompt: list[dict] | None
    admitted_seq: int


@dataclass
class FakeReceipt:
    """The fields of ``Receipt`` (an admitted prompt or compaction)."""

    input_id: str
    session_id: str
    kind: str
    delivery: str | None
    admitted_seq: int


@dataclass
class FakeSubscription:
    """Like the bus's Subscription: an async iterator and a context manager."""

    queue: asyncio.Queue
    on_close: Any
    closed: bool = False

    def __aiter__(self) -> FakeSubscription:
        return self

    async def __anext__(self) -> Any:
        return await self.queue.get()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.on_close()

    def __enter__(self) -> FakeSubscription:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@dataclass
class FakeSessions:
    logs: dict[str, LogBuilder] = field(default_factory=dict)
    running: set[str] = field(default_factory=set)
    calls: list[tuple] = field(default_factory=list)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _subscribers: dict[str, list[asyncio.Queue]] = field(default_factory=dict)
    _counter: int = 0

    # --------------------------------------------------------------- test side

    def add_log(self, log: LogBuilder) -> str:
        self.logs[log.session_id] = log
        return log.session_id

    def publish(self, session_id: str, event: ev.DurableEvent) -> ev.StoredEvent:
        stored = self.logs[session_id].add(event)
        self._changed.set()
        self._changed = asyncio.Event()
        for queue in self._subscribers.get(session_id, []):
            queue.put_nowait(ev.HeadAdvanced(session_id=session_id, head_seq=stored.seq))
        return stored

    def delta(self, delta: ev.LiveEvent) -> None:
        for queue in self._subscribers.get(delta.session_id, []):
            queue.put_nowait(delta)

    # --------------------------------------------------------------- facade

    def create(self, id: str | None = None, *, location: str, title: str | None = None,
               agent: str | None = None, model: str | None = None) -> FakeSessionRecord:  # fmt: skip
        self._counter += 1
        session_id = id or f"ses_new{self._counter}"
        self.calls.append(("create", session_id, location, model))
        log = LogBuilder(session_id=session_id)
        self.logs[session_id] = log
        self.publish(session_id, ev.SessionCreated(location=location, project_root=location, model=model))
        return self._summary(session_id)

    async def prompt(self, session_id: str, prompt: list, id: str | None = None,
                     delivery: str = "steer", resume: bool = True) -> FakeReceipt:  # fmt: skip
        self._counter += 1
        input_id = id or f"msg_in{self._counter}"
        self.calls.append(("prompt", session_id, ev.prompt_text(prompt), delivery))
        event = ev.PromptAdmitted(input_id=input_id, prompt=prompt, delivery=Delivery(delivery))
        stored = self.publish(session_id, event)
        return FakeReceipt(input_id, session_id, "prompt", delivery, stored.seq)

    async def withdraw(self, session_id: str, input_id: str) -> None:
        self.calls.append(("withdraw", session_id, input_id))
        if not any(getattr(e.event, "input_id", None) == input_id for e in self._events(session_id)):
            raise UnknownInput(f"unknown input {input_id} in session {session_id}")
        if input_id not in {row.id for row in self._inbox(session_id)}:
            raise EventRejected(f"cannot withdraw input {input_id}: it is no longer pending")
        self.publish(session_id, ev.PromptWithdrawn(input_id=input_id))

    async def select_model(self, session_id: str, model: str) -> None:
        self.calls.append(("select_model", session_id, model))
        self.publish(session_id, ev.ModelSelected(model=model))

    async def reorder_queue(self, session_id: str, order: list[str]) -> None:
        self.calls.append(("reorder_queue", session_id, list(order)))
        self.publish(session_id, ev.QueueReordered(order=list(order)))

    async def pause_queue(self, session_id: str, paused: bool = True) -> None:
        self.calls.append(("pause_queue", session_id, paused))
        self.publish(session_id, ev.QueuePaused(paused=paused))

    async def shell(self, session_id: str, command: str) -> str:
        self.calls.append(("shell", session_id, command))
        stored = self.publish(session_id, ev.ShellAdmitted(input_id=f"inp_s{len(self.calls)}", command=command))
        return stored.event.input_id

    async def select_agent(self, session_id: str, agent: str) -> None:
        self.calls.append(("select_agent", session_id, agent))
        self.publish(session_id, ev.AgentSelected(agent=agent))

    async def compact(self, session_id: str) -> FakeReceipt:
        """One barrier pending at a time: a second call returns the first."""
        self.calls.append(("compact", session_id))
        queued = next((row for row in self._inbox(session_id) if row.kind == "compaction"), None)
        if queued is not None:
            return FakeReceipt(queued.id, session_id, "compaction", None, queued.admitted_seq)
        stored = self.publish(session_id, ev.CompactionAdmitted(input_id=f"inp_c{len(self.calls)}"))
        return FakeReceipt(stored.event.input_id, session_id, "compaction", None, stored.seq)

    async def wake(self, session_id: str) -> None:
        self.calls.append(("wake", session_id))

    async def resume(self, session_id: str) -> bool:
        self.calls.append(("resume", session_id))
        return session_id not in self.running

    async def interrupt(self, session_id: str, reason: str = "user") -> None:
        self.calls.append(("interrupt", session_id, reason))
        if session_id in self.running:
            self.running.discard(session_id)
            self.publish(session_id, ev.ExecutionInterrupted(reason=InterruptReason(reason)))

    def active(self) -> dict[str, dict[str, str]]:
        return {sid: {"type": "running"} for sid in self.running}

    async def list(self, location: str | None = None, search: str | None = None,
                   limit: int = 50, offset: int = 0) -> list[FakeSessionRecord]:  # fmt: skip
        self.calls.append(("list", location, search, limit, offset))
        rows = [self._summary(sid) for sid in self.logs]
        rows = [r for r in rows if location is None or r.location == location]
        if search:
            rows = [r for r in rows if search.lower() in (r.title or "").lower()]
        rows.sort(key=lambda r: r.updated, reverse=True)
        return rows[offset : offset + limit]

    async def latest(self, location: str) -> FakeSessionRecord | None:
        self.calls.append(("latest", location))
        rows = await self.list(location=location, limit=1)
        return rows[0] if rows else None

    def _events(self, session_id: str) -> list[ev.StoredEvent]:
        if session_id not in self.logs:
            raise UnknownSession(session_id)
        return self.logs[session_id].events

    def _summary(self, session_id: str) -> FakeSessionRecord:
        log = self.logs[session_id]
        f = fold(log.events).facts
        return FakeSessionRecord(session_id, f.title, f.location or "", log.now_ms, message_count(log.events), None,
                                 f.agent or "build", f.model, f.input_tokens, f.output_tokens, f.cost,
                                 len(log.events))  # fmt: skip

    async def get(self, session_id: str) -> FakeSessionRecord:
        self._events(session_id)
        return self._summary(session_id)

    def _inbox(self, session_id: str) -> list[FakeInboxRecord]:
        """Admitted prompts and compaction barriers not yet promoted, started or withdrawn."""
        rows: dict[str, FakeInboxRecord] = {}
        for stored in self._events(session_id):
            match stored.event:
                case ev.PromptAdmitted(input_id=input_id, prompt=prompt, delivery=delivery):
                    parts = [part.model_dump(mode="json") for part in prompt]
                    rows[input_id] = FakeInboxRecord(input_id, "prompt", delivery.value, parts, stored.seq)
                case ev.CompactionAdmitted(input_id=input_id):
                    rows[input_id] = FakeInboxRecord(input_id, "compaction", None, None, stored.seq)
                case ev.PromptPromoted(input_id=input_id) | ev.PromptWithdrawn(input_id=input_id):
                    rows.pop(input_id, None)
                case ev.CompactionStarted(input_id=str(input_id)) | ev.CompactionEnded(input_id=str(input_id)) | \
                        ev.CompactionFailed(input_id=str(input_id)):  # fmt: skip
                    rows.pop(input_id, None)
        return list(rows.values())

    async def pending(self, session_id: str) -> list[FakeInboxRecord]:
        return self._inbox(session_id)

    async def log(self, session_id: str, after: int | None = None, follow: bool = False) -> AsyncIterator[Any]:
        events = self._events(session_id)
        cursor = after or 0
        for stored in events[cursor:]:
            yield stored
        cursor = len(events)
        yield FakeSynced(cursor or None)
        while follow:
            changed = self._changed
            if cursor >= len(events):
                await changed.wait()
            for stored in events[cursor:]:
                yield stored
            cursor = len(events)

    def subscribe(self, session_id: str) -> FakeSubscription:
        queue: asyncio.Queue = asyncio.Queue()
        self._subscribers.setdefault(session_id, []).append(queue)
        return FakeSubscription(queue, lambda: self._subscribers[session_id].remove(queue))

    async def lineage(self, session_id: str) -> list[tuple[str, int]]:
        return []

    async def rewind_state(self, session_id: str):  # type: ignore[no-untyped-def]
        from agent_tui.core.history.rewind import rewind_state

        return rewind_state(self._events(session_id))

    async def permissions(self, session_id: str) -> list:
        """The asks waiting for a reply (the transcript's ``PermissionAsk`` has the fields read)."""
        return list(fold(self._events(session_id)).asks.values())

    async def reply_permission(self, request_id: str, reply: str, message: str | None = None) -> None:
        self.calls.append(("reply_permission", request_id, reply, message))
        for session_id, log in self.logs.items():
            if request_id in fold(log.events).asks:
                self.publish(session_id, ev.PermissionReplied(
                    request_id=request_id, reply=PermissionReply(reply), message=message))  # fmt: skip


def message_count(events: list[ev.StoredEvent]) -> int:
    """The store's ``message_count``: user messages, assistant steps, instruction updates and
    compaction dividers (a queued divider is one until its compaction starts under another id)."""
    ids: set[str] = set()
    for stored in events:
        match stored.event:
            case ev.PromptPromoted(input_id=mid) | ev.CompactionAdmitted(input_id=mid) | \
                    ev.StepStarted(assistant_message_id=mid) | ev.InstructionsUpdated(message_id=mid):  # fmt: skip
                ids.add(mid)
            case ev.PromptWithdrawn(input_id=input_id):
                ids.discard(input_id)
            case ev.CompactionStarted(message_id=mid, input_id=input_id) | ev.CompactionEnded(
                message_id=mid, input_id=input_id
            ) | ev.CompactionFailed(message_id=mid, input_id=input_id):
                if input_id and mid and mid != input_id:
                    ids.discard(input_id)
                if mid or input_id:
                    ids.add(mid or input_id)
    return len(ids)
