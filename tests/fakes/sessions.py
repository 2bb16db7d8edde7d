"""FakeSessions: an in-memory Sessions facade that serves stored logs and records calls.

It speaks the facade's contract (``log`` replays then emits one synced marker then
tails; ``subscribe`` carries live deltas) so Pilot tests drive the real widgets
while the test plays the runner by publishing events.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from agent_tui.core import events as ev
from agent_tui.tui.transcript_model import fold

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
                     delivery: str = "steer", resume: bool = True) -> dict:  # fmt: skip
        self._counter += 1
        input_id = id or f"msg_in{self._counter}"
        self.calls.append(("prompt", session_id, ev.prompt_text(prompt), delivery))
        self.publish(session_id, ev.PromptAdmitted(input_id=input_id, prompt=prompt, delivery=ev.Delivery(delivery)))
        return {"input_id": input_id}

    async def withdraw(self, session_id: str, input_id: str) -> None:
        self.calls.append(("withdraw", session_id, input_id))
        if input_id not in fold(self.logs[session_id].events).pending:
            raise ValueError(f"{input_id} is no longer pending")
        self.publish(session_id, ev.PromptWithdrawn(input_id=input_id))

    async def select_model(self, session_id: str, model: str) -> None:
        self.calls.append(("select_model", session_id, model))
        self.publish(session_id, ev.ModelSelected(model=model))

    async def compact(self, session_id: str) -> None:
        self.calls.append(("compact", session_id))
        self.publish(session_id, ev.CompactionAdmitted(input_id=f"inp_c{len(self.calls)}"))

    async def wake(self, session_id: str) -> None:
        self.calls.append(("wake", session_id))

    async def interrupt(self, session_id: str, reason: str = "user") -> None:
        self.calls.append(("interrupt", session_id, reason))
        if session_id in self.running:
            self.running.discard(session_id)
            self.publish(session_id, ev.ExecutionInterrupted(reason=ev.InterruptReason(reason)))

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

    def _summary(self, session_id: str) -> FakeSessionRecord:
        log = self.logs[session_id]
        t = fold(log.events)
        f = t.facts
        users = [b for b in t.blocks if b.__class__.__name__ == "UserBlock"]
        return FakeSessionRecord(session_id, f.title, f.location or "", log.now_ms, len(users), None, f.agent or "build",
                       f.model, f.input_tokens, f.output_tokens, f.cost, len(log.events))  # fmt: skip

    async def get(self, session_id: str) -> FakeSessionRecord:
        if session_id not in self.logs:
            raise KeyError(f"no session {session_id}")
        return self._summary(session_id)

    async def pending(self, session_id: str) -> list[FakeInboxRecord]:
        t = fold(self.logs[session_id].events)
        return [FakeInboxRecord(p.input_id, "prompt", p.delivery.value, [{"type": "text", "text": p.text}], p.seq)
                for p in t.pending_inputs]  # fmt: skip

    async def log(self, session_id: str, after: int | None = None, follow: bool = False) -> AsyncIterator[Any]:
        if session_id not in self.logs:
            raise KeyError(f"no session {session_id}")
        cursor = after or 0
        events = self.logs[session_id].events
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

    async def permissions(self, session_id: str) -> list:
        return list(fold(self.logs[session_id].events).asks.values()) if session_id in self.logs else []

    async def reply_permission(self, request_id: str, reply: str, message: str | None = None) -> None:
        self.calls.append(("reply_permission", request_id, reply, message))
        for session_id, log in self.logs.items():
            if request_id in fold(log.events).asks:
                self.publish(session_id, ev.PermissionReplied(
                    request_id=request_id, reply=ev.PermissionReply(reply), message=message))  # fmt: skip
