"""FakeSessions: an in-memory Sessions facade that serves stored logs and records calls.

It has the facade's shape (``tui.port.SessionsPort``, held by the type checker in
``test_sessions_contract.py``) and returns its record types. It speaks the facade's contract (``log`` replays then emits one synced marker then
tails; ``subscribe`` carries live deltas) so Pilot tests drive the real widgets
while the test plays the runner by publishing events.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.api import (
    ApprovalRecord,
    ContextBreakdown,
    EventRejected,
    FilesPreview,
    ImportOutcome,
    InboxRecord,
    InvalidRequest,
    PermissionRecord,
    PlanRecord,
    Receipt,
    RewindPoint,
    RewindRefused,
    RewindResult,
    RewindState,
    SessionBusy,
    SessionRecord,
    SessionSummary,
    SessionUsage,
    Synced,
    UnknownInput,
    UnknownSession,
    UsageRow,
)
from agent_tui.core.api import events as ev
from agent_tui.tui.transcript.model import fold
from agent_tui.vocab.kinds import ApprovalMode, Delivery, InterruptReason, PermissionReply
from tests.fakes.logs import LogBuilder


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
class FakeAsks:
    """``Sessions.asks`` with no MCP servers: nothing ever asks; answers go to ``calls`` (the facade's)."""

    calls: list[tuple]

    def watch_elicitations(self, watcher: Any) -> Any:
        return lambda: None

    def answer_elicitation(self, request_id: str, action: str, content: dict[str, Any] | None = None) -> None:
        self.calls.append(("answer_elicitation", request_id, action, content))

    def watch_samplings(self, watcher: Any) -> Any:
        return lambda: None

    def answer_sampling(self, request_id: str, approve: bool) -> None:
        self.calls.append(("answer_sampling", request_id, approve))


@dataclass
class FakeTransfer:
    """``Sessions.transfer``: an export lists the session's event types; calls go to ``calls`` (the facade's)."""

    calls: list[tuple]
    events: Callable[[str], list[ev.StoredEvent]]

    async def export(self, session_id: str, format: str = "jsonl") -> str:
        self.calls.append(("export", session_id, format))
        if format not in ("jsonl", "markdown"):
            raise InvalidRequest(f"export format must be jsonl or markdown, not {format!r}")
        return "".join(f"{stored.type}\n" for stored in self.events(session_id))

    async def import_foreign(
        self, agent: str, text: str, *, path: str, location: str | Path | None = None, again: bool = False
    ) -> ImportOutcome:
        """Not imitated: the Pilot tests of importing run on the real store (tests/tui/test_app_imported.py)."""
        self.calls.append(("import_foreign", agent, path))
        raise InvalidRequest("the fake does not import other agents' sessions")


@dataclass
class FakePermissions:
    """``Sessions.permissions`` over the fake's logs: the asks its logs hold, replies published into
    them, and the facade's ``saved`` approvals; calls go to the facade's ``calls``."""

    of: FakeSessions = field(repr=False, compare=False)

    async def approvals(self, location: str | Path) -> list[ApprovalRecord]:
        return [a for a in self.of.saved if a.project_root == str(location)]

    async def revoke_approvals(
        self, location: str | Path, action: str | None = None, pattern: str | None = None
    ) -> list[ApprovalRecord]:
        self.of.calls.append(("revoke_approvals", str(location), action, pattern))
        gone = [
            a
            for a in await self.approvals(location)
            if (action is None or a.action == action) and (pattern is None or a.pattern == pattern)
        ]
        self.of.saved = [a for a in self.of.saved if a not in gone]
        return gone

    async def pending(self, session_id: str) -> list[PermissionRecord]:
        """The asks waiting for a reply."""
        return [
            PermissionRecord(
                request_id=ask.request_id,
                session_id=session_id,
                seq=ask.seq,
                assistant_message_id=ask.assistant_message_id,
                call_id=ask.call_id,
                action=ask.action,
                resources=ask.resources,
                save=[],
                detail=ask.detail,
                reply=None,
                message=None,
                replied_seq=None,
                created=0,
            )
            for ask in fold(self.of._events(session_id)).asks.values()
        ]

    async def reply(self, request_id: str, reply: str, message: str | None = None) -> None:
        self.of.calls.append(("reply_permission", request_id, reply, message))
        for session_id, log in self.of.logs.items():
            if request_id in fold(log.events).asks:
                self.of.publish(
                    session_id,
                    ev.PermissionReplied(request_id=request_id, reply=PermissionReply(reply), message=message),
                )


@dataclass
class FakeSessions:
    logs: dict[str, LogBuilder] = field(default_factory=dict)
    running: set[str] = field(default_factory=set)
    parents: dict[str, str] = field(default_factory=dict)  # a running subagent's parent, as ``active()`` names it
    calls: list[tuple] = field(default_factory=list)
    modes: dict[str, ApprovalMode] = field(default_factory=dict)  # chosen approval modes, by session
    saved: list[ApprovalRecord] = field(default_factory=list)  # "always" approvals, any project
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _subscribers: dict[str, list[asyncio.Queue]] = field(default_factory=dict)
    _counter: int = 0
    context: ContextBreakdown | None = None  # what ``context_breakdown`` answers (a test sets it)
    asks: FakeAsks = field(init=False)
    transfer: FakeTransfer = field(init=False)
    permissions: FakePermissions = field(init=False)

    def __post_init__(self) -> None:
        self.asks = FakeAsks(self.calls)
        self.permissions = FakePermissions(self)
        self.transfer = FakeTransfer(self.calls, self._events)

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

    async def create(
        self,
        id: str | None = None,
        *,
        location: str,
        title: str | None = None,
        agent: str | None = None,
        model: str | None = None,
    ) -> SessionRecord:
        self._counter += 1
        session_id = id or f"ses_new{self._counter}"
        self.calls.append(("create", session_id, location, model))
        log = LogBuilder(session_id=session_id)
        self.logs[session_id] = log
        self.publish(session_id, ev.SessionCreated(location=location, project_root=location, model=model))
        return self._summary(session_id)

    async def prompt(
        self,
        session_id: str,
        prompt: Sequence[Any],
        id: str | None = None,
        delivery: str = "steer",
        resume: bool = True,
    ) -> Receipt:
        self._counter += 1
        input_id = id or f"msg_in{self._counter}"
        self.calls.append(("prompt", session_id, ev.prompt_text(prompt), delivery))
        event = ev.PromptAdmitted(input_id=input_id, prompt=list(prompt), delivery=Delivery(delivery))
        stored = self.publish(session_id, event)
        return receipt(input_id, session_id, "prompt", delivery, stored.seq)

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

    async def reorder_queue(self, session_id: str, order: Sequence[str]) -> None:
        self.calls.append(("reorder_queue", session_id, list(order)))
        self.publish(session_id, ev.QueueReordered(order=list(order)))

    async def pause_queue(self, session_id: str, paused: bool = True) -> None:
        self.calls.append(("pause_queue", session_id, paused))
        self.publish(session_id, ev.QueuePaused(paused=paused))

    async def shell(self, session_id: str, command: str) -> str:
        self.calls.append(("shell", session_id, command))
        stored = self.publish(session_id, ev.ShellAdmitted(input_id=f"inp_s{len(self.calls)}", command=command))
        return stored.event.input_id  # type: ignore[attr-defined, no-any-return]

    async def select_agent(self, session_id: str, agent: str) -> None:
        self.calls.append(("select_agent", session_id, agent))
        self.publish(session_id, ev.AgentSelected(agent=agent))

    async def compact(self, session_id: str) -> Receipt:
        """One barrier pending at a time: a second call returns the first."""
        self.calls.append(("compact", session_id))
        queued = next((row for row in self._inbox(session_id) if row.kind == "compaction"), None)
        if queued is not None:
            return receipt(queued.id, session_id, "compaction", None, queued.admitted_seq)
        stored = self.publish(session_id, ev.CompactionAdmitted(input_id=f"inp_c{len(self.calls)}"))
        return receipt(stored.event.input_id, session_id, "compaction", None, stored.seq)  # type: ignore[attr-defined]

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

    async def shutdown(self) -> None:
        """As the coordinator's: every running session interrupted with reason ``shutdown``."""
        for session_id in list(self.running):
            await self.interrupt(session_id, "shutdown")

    def active(self) -> dict[str, dict[str, Any]]:
        return {
            sid: {"type": "running", **({"parent": self.parents[sid]} if sid in self.parents else {})}
            for sid in self.running
        }

    def choose_approval(self, session_id: str, mode: ApprovalMode) -> None:
        """Kept in ``modes``, not ``calls`` (every session the app creates gets one)."""
        self.modes[session_id] = ApprovalMode(mode)

    def approval(self, session_id: str) -> ApprovalMode | None:
        return self.modes.get(session_id)

    async def list(
        self,
        location: str | None = None,
        search: str | None = None,
        limit: int = 50,
        offset: int = 0,
        top_level: bool = False,
    ) -> list[SessionSummary]:
        self.calls.append(("list", location, search, limit, offset))
        rows = [self._summary(sid) for sid in self.logs]
        rows = [r for r in rows if not (top_level and r.spawned_by)]
        rows = [r for r in rows if location is None or r.location == location]
        if search:
            rows = [r for r in rows if search.lower() in (r.title or "").lower()]
        rows.sort(key=lambda r: r.updated, reverse=True)  # stable: equal times keep insertion order
        return rows[offset : offset + limit]

    async def children(self, session_ids: Sequence[str]) -> list[SessionSummary]:
        rows = [self._summary(sid) for sid in self.logs]
        return [r for r in rows if r.spawned_by in session_ids]

    async def latest(self, location: str) -> SessionRecord | None:
        self.calls.append(("latest", location))
        rows = await self.list(location=location, limit=1)
        return rows[0] if rows else None

    def _events(self, session_id: str) -> list[ev.StoredEvent]:
        if session_id not in self.logs:
            raise UnknownSession(session_id)
        return self.logs[session_id].events

    def _summary(self, session_id: str) -> SessionSummary:
        log = self.logs[session_id]
        f = fold(log.events).facts
        link = _spawned_by(log.events)
        return SessionSummary(
            id=session_id,
            title=f.title,
            location=f.location or "",
            project_root=f.location or "",
            agent=f.agent or "build",
            model=f.model,
            parent_id=None,
            spawned_by=link.session_id if link else None,
            spawned_message_id=link.assistant_message_id if link else None,
            spawned_call_id=link.call_id if link else None,
            created=0,
            updated=log.now_ms,
            message_count=message_count(log.events),
            last_message=None,
            input_tokens=f.input_tokens,
            output_tokens=f.output_tokens,
            cost=f.cost,
            head_seq=len(log.events),
        )

    async def get(self, session_id: str) -> SessionRecord:
        self._events(session_id)
        return self._summary(session_id)

    def _inbox(self, session_id: str) -> list[InboxRecord]:
        """Admitted prompts and compaction barriers not yet promoted, started or withdrawn."""
        rows: dict[str, InboxRecord] = {}
        for stored in self._events(session_id):
            match stored.event:
                case ev.PromptAdmitted(input_id=input_id, prompt=prompt, delivery=delivery):
                    parts = [part.model_dump(mode="json") for part in prompt]
                    rows[input_id] = inbox_row(session_id, input_id, "prompt", delivery.value, parts, stored.seq)
                case ev.CompactionAdmitted(input_id=input_id):
                    rows[input_id] = inbox_row(session_id, input_id, "compaction", None, None, stored.seq)
                case ev.PromptPromoted(input_id=input_id) | ev.PromptWithdrawn(input_id=input_id):
                    rows.pop(input_id, None)
                case (
                    ev.CompactionStarted(input_id=str(input_id))
                    | ev.CompactionEnded(input_id=str(input_id))
                    | ev.CompactionFailed(input_id=str(input_id))
                ):
                    rows.pop(input_id, None)
        return list(rows.values())

    async def pending(self, session_id: str) -> list[InboxRecord]:
        return self._inbox(session_id)

    async def log(
        self, session_id: str, after: int | None = None, follow: bool = False
    ) -> AsyncGenerator[ev.StoredEvent | Synced, None]:
        events = self._events(session_id)
        cursor = after or 0
        for stored in events[cursor:]:
            yield stored
        cursor = len(events)
        yield Synced(seq=cursor or None)
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

    async def context_breakdown(
        self,
        session_id: str | None = None,
        *,
        location: str | Path | None = None,
        model: str | None = None,
        agent: str | None = None,
    ) -> ContextBreakdown:
        """The breakdown the test set (the fake measures nothing); an unknown id raises as the facade does."""
        self.calls.append(("context_breakdown", session_id, location))
        if session_id is not None:
            self._events(session_id)
        if self.context is None:
            raise InvalidRequest("FakeSessions.context is not set")
        return self.context

    async def usage(self, session_id: str, subagents: bool = True) -> SessionUsage:
        """The session's own ended steps summed (the fake has no subagents' sessions to add)."""
        steps: dict[str, tuple[str, str]] = {}
        rows: list[UsageRow] = []
        for stored in self._events(session_id):
            match stored.event:
                case ev.StepStarted(assistant_message_id=amid, agent=agent, model=model):
                    steps[amid] = (agent, model)
                case ev.StepEnded(assistant_message_id=amid, usage=usage, cost=cost):
                    agent, model = steps.get(amid, ("", ""))
                    unpriced = int(cost is None and usage.input_tokens + usage.output_tokens > 0)
                    for key in (model, agent):
                        rows.append(
                            UsageRow(
                                key=key,
                                sessions=1,
                                steps=1,
                                input_tokens=usage.input_tokens,
                                output_tokens=usage.output_tokens,
                                cost=cost,
                                unpriced_steps=unpriced,
                            )
                        )
        by_model, by_agent = rows[0::2], rows[1::2]
        total = UsageRow(
            key="",
            steps=len(by_model),
            input_tokens=sum(r.input_tokens for r in by_model),
            output_tokens=sum(r.output_tokens for r in by_model),
            cost=sum(r.cost for r in by_model if r.cost is not None)
            if any(r.cost is not None for r in by_model)
            else None,
            unpriced_steps=sum(r.unpriced_steps for r in by_model),
        )
        return SessionUsage(session_id=session_id, total=total, by_model=by_model, by_agent=by_agent)

    async def plan(self, session_id: str) -> PlanRecord:
        """As the projection: the plan of the newest successful ``todo`` call (the fake does not rewind)."""
        todo_calls: set[tuple[str, str]] = set()
        plan = PlanRecord(session_id=session_id)
        for stored in self._events(session_id):
            match stored.event:
                case ev.ToolCalled(name="todo", assistant_message_id=amid, call_id=call_id):
                    todo_calls.add((amid, call_id))
                case ev.ToolSucceeded(assistant_message_id=amid, call_id=call_id, output=output) if (
                    amid,
                    call_id,
                ) in todo_calls:
                    plan = PlanRecord(session_id=session_id, seq=stored.seq, call_id=call_id, items=output.data["plan"])
        return plan

    async def lineage(self, session_id: str) -> list[tuple[str, int]]:
        return []

    async def rewind_state(self, session_id: str) -> RewindState:
        from agent_tui.core.history.rewind import rewind_state  # not on core.api

        return rewind_state(self._events(session_id))

    async def rewind_points(self, session_id: str) -> list[RewindPoint]:
        self._events(session_id)
        return []  # the fake does not rewind: Pilot tests of the rewind screen run over the real facade

    async def can_undo_rewind(self, session_id: str) -> bool:
        self._events(session_id)
        return False

    async def rewind_preview(self, session_id: str, message_id: str) -> FilesPreview:
        self._events(session_id)
        return FilesPreview(changed=[])

    async def rewind(self, session_id: str, message_id: str, mode: str = "both") -> RewindResult:
        self.calls.append(("rewind", session_id, message_id, mode))
        raise RewindRefused("the fake does not rewind")

    async def undo_rewind(self, session_id: str) -> RewindResult:
        self.calls.append(("undo_rewind", session_id))
        raise RewindRefused("the fake does not rewind")

    async def fork(self, session_id: str, at: str | None = None) -> SessionRecord:
        """A new session at the parent's location (its history is not copied)."""
        self.calls.append(("fork", session_id, at))
        parent = await self.get(session_id)
        return await self.create(location=parent.location, model=parent.model)

    async def rename(self, session_id: str, title: str) -> SessionRecord:
        self.calls.append(("rename", session_id, title))
        clean = " ".join(title.split())
        if not clean:
            raise InvalidRequest("a session title cannot be empty")
        self.publish(session_id, ev.SessionRenamed(title=clean))
        return await self.get(session_id)

    async def delete(self, session_id: str) -> int:
        self.calls.append(("delete", session_id))
        count = len(self._events(session_id))
        if session_id in self.running:
            raise SessionBusy(f"session {session_id} is running")
        del self.logs[session_id]
        return count


def receipt(
    input_id: str, session_id: str, kind: Literal["prompt", "compaction"], delivery: str | None, admitted_seq: int
) -> Receipt:
    return Receipt(input_id=input_id, session_id=session_id, kind=kind, delivery=delivery, admitted_seq=admitted_seq)


def inbox_row(
    session_id: str,
    input_id: str,
    kind: Literal["prompt", "compaction"],
    delivery: str | None,
    prompt: list[dict[str, Any]] | None,
    admitted_seq: int,
) -> InboxRecord:
    return InboxRecord(
        id=input_id,
        session_id=session_id,
        kind=kind,
        delivery=delivery,
        prompt=prompt,
        fingerprint="",
        admitted_seq=admitted_seq,
        promoted_seq=None,
        settled_seq=None,
        withdrawn=False,
        created=0,
    )


def message_count(events: list[ev.StoredEvent]) -> int:
    """The store's ``message_count``: user messages, assistant steps, instruction updates and
    compaction dividers (a queued divider is one until its compaction starts under another id)."""
    ids: set[str] = set()
    for stored in events:
        match stored.event:
            case (
                ev.PromptPromoted(input_id=mid)
                | ev.CompactionAdmitted(input_id=mid)
                | ev.StepStarted(assistant_message_id=mid)
                | ev.InstructionsUpdated(message_id=mid)
            ):
                ids.add(mid)
            case ev.PromptWithdrawn(input_id=input_id):
                ids.discard(input_id)
            case (
                ev.CompactionStarted(message_id=mid, input_id=input_id)
                | ev.CompactionEnded(message_id=mid, input_id=input_id)
                | ev.CompactionFailed(message_id=mid, input_id=input_id)
            ):
                if input_id and mid and mid != input_id:
                    ids.discard(input_id)
                if mid or input_id:
                    ids.add(mid or input_id)
    return len(ids)


def _spawned_by(events: list[ev.StoredEvent]) -> ev.SpawnedBy | None:
    """A subagent's session names its parent and the call in its first event."""
    first = events[0].event if events else None
    return first.spawned_by if isinstance(first, ev.SessionCreated) else None
