"""One session followed into a :class:`Transcript`: the path from the facade to the view.

A feed follows ``sessions.log(id, after, follow=True)`` (durable events, one
``Synced`` marker, then the tail) and ``sessions.subscribe(id)`` (live deltas;
``HeadAdvanced`` is skipped, the log tail re-reads the store) and folds both
into one transcript. Folding never touches widgets: it schedules a flush at
most ``timings.flush_interval_s`` apart, and a flush reads liveness from
``active()`` and asks the view to repaint what changed, so a burst of 1 000
deltas costs one repaint rather than 1 000.

A long session opens at its end: the first paint folds only the last
``TAIL_EVENTS`` events from a busy-period boundary (``execution.started``),
seeded with what the skipped prefix would have told it (the session row's names
and counters, the unpromoted inbox); scrolling to the top folds the segment
before it the same way (:func:`fold_older`).

It talks to the screen through :class:`FeedView` only, so it runs without
Textual in tests. The event models are imported inside the functions that
fold: this module is on the first frame's path, and their module imports
pydantic (~60 ms) which the core's start-up imports in a thread later.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import aclosing
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.tui.child_asks import ChildAsk, child_asks, descendants
from agent_tui.tui.child_progress import ChildFollow, Subagents
from agent_tui.tui.keys_first import RETRY_S
from agent_tui.tui.port import SessionsPort
from agent_tui.tui.services import CoreUnavailable, TuiServices
from agent_tui.tui.transcript.model import Transcript
from agent_tui.tui.transcript.records import PendingInput, SessionFacts
from agent_tui.vocab.kinds import Delivery

if TYPE_CHECKING:
    from agent_tui.core.api import PlanRecord
    from agent_tui.core.api import events as ev

TAIL_EVENTS = 600  # folded before the first paint of a long session
OLDER_EVENTS = 1_000  # folded per scroll past the top
POLL_S = 1.0  # the view calls SessionFeed.poll this often

FetchOlder = Callable[[], Awaitable[int]]


class Stoppable(Protocol):
    def cancel(self) -> None: ...


class FeedView(Protocol):
    """What a feed needs from the screen showing it (a ``SessionView``)."""

    def run_feed_work(self, work: Callable[[], Awaitable[None]], name: str) -> Stoppable:
        """Run ``work`` tied to the view's lifetime (a worker); switching sessions stops it."""

    def feed_later(self, delay_s: float, callback: Callable[[], Awaitable[None]]) -> None:
        """Call ``callback`` after ``delay_s`` (0: as soon as the loop is free)."""

    async def show_transcript(self, transcript: Transcript, fetch_older: FetchOlder | None) -> None:
        """Show ``transcript`` from scratch; ``fetch_older`` folds the segment before its start."""

    async def repaint(self, active: bool) -> None:
        """Bring the widgets up to date with the transcript (``active``: the session runs)."""

    def paint_chrome(self) -> None:
        """Repaint what surrounds the transcript: pending strip, permission panel, status bar."""

    def report(self, message: str) -> None:
        """Say in one line what went wrong."""

    def reopen(self) -> None:
        """Show the session on screen again from scratch (after a rewind or its undo)."""


class SessionFeed:
    """Owns the transcript of the session on screen and keeps it following the store."""

    def __init__(self, services: TuiServices, view: FeedView) -> None:
        self.services = services
        self._view = view
        self.session_id: str | None = None
        self.transcript = Transcript()
        self.synced = True  # the first paint is done (a new session has nothing to replay)
        self.background_asks = 0  # permission asks waiting in other sessions
        self.child_asks: list[ChildAsk] = []  # asks of this session's running subagents (``tui/child_asks.py``)
        self.plan: PlanRecord | None = None
        """The live plan, read from the store's projection at the first paint and again after each
        plan update in the tail (never folded here: the projection already knows rewinds and forks)."""
        self._flush_pending = False
        self._deltas: Stoppable | None = None
        self.subagents = Subagents(view, self._child_feed, lambda: self.transcript, self.schedule_flush)
        """This session's running children, followed live onto their ``task`` blocks (``tui/child_progress.py``)."""

    def _child_feed(self, view: ChildFollow) -> SessionFeed:
        return SessionFeed(self.services, view)

    @property
    def is_active(self) -> bool:
        return self.session_id is not None and self.session_id in self.services.active()

    def open(self, session_id: str | None) -> None:
        """A fresh transcript for ``session_id`` (None: a new session); :meth:`follow` starts reading.
        The view has stopped the previous feed's work."""
        self.session_id, self.transcript = session_id, Transcript()
        self.synced = session_id is None
        self.plan = None
        self.subagents.forget()

    def follow(self) -> None:
        """Start following the opened session (a new one is followed once :meth:`adopt` names it)."""
        if self.session_id is not None:
            self._follow(self.session_id)

    def adopt(self, session_id: str) -> None:
        """The new session on screen was created by its first prompt: follow it into this transcript."""
        self.session_id = session_id
        self._follow(session_id)

    def _follow(self, session_id: str) -> None:
        self._view.run_feed_work(partial(self._follow_log, session_id), "log")
        # a callable, not a coroutine: a failed log read may cancel this work before it starts
        self._deltas = self._view.run_feed_work(partial(self._follow_deltas, session_id), "deltas")

    # ------------------------------------------------------------------ following

    async def _follow_log(self, session_id: str) -> None:
        transcript = self.transcript
        try:
            sessions = await self.services.ready()
            from agent_tui.core.api import events as ev  # see the module docstring

            record = await sessions.get(session_id)
            transcript.know_rewinds(await sessions.rewind_state(session_id))
            after = max(0, record.head_seq - TAIL_EVENTS)  # only the newest busy periods before the first paint
            lineage = list(await sessions.lineage(session_id))
            for ancestor, upto in lineage:  # a fork: its history is its ancestors' logs up to each fork point
                for stored in await read_range(sessions, ancestor, transcript.head_seq, upto + 1):
                    transcript.apply(stored)
                after = upto
            replay: list[ev.StoredEvent] = []
            async with aclosing(sessions.log(session_id, after=after, follow=True)) as log:
                async for item in log:
                    if not isinstance(item, ev.StoredEvent):
                        if not self.synced:  # the one Synced marker: paint what we have at once
                            await self._first_paint(sessions, record, replay, after == 0 or bool(lineage))
                    elif self.synced:
                        transcript.apply(item)
                        if transcript.stale:  # rewound (or undone) meanwhile: fold it again from the store
                            self._view.reopen()
                            return
                        if may_update_plan(item):
                            self.plan = await sessions.plan(session_id)
                        self.schedule_flush()
                    else:
                        replay.append(item)
        except Exception as error:  # unknown id, unreadable store: say so, keep the app usable
            self._view.report(f"cannot open session {session_id}: {error}")
            if self._deltas is not None:
                self._deltas.cancel()
            self.session_id, self.synced, self.transcript, self.plan = None, True, Transcript(), None
            await self._view.show_transcript(self.transcript, None)
            self._view.paint_chrome()

    async def _first_paint(
        self, sessions: SessionsPort, record: Any, replay: list[ev.StoredEvent], whole: bool
    ) -> None:
        """``record``: the session row read before the log opened (its counters cover up to its head)."""
        transcript = self.transcript
        session_id = record.id
        start = segment_start(replay, from_log_start=whole)
        if not whole:
            await seed_for(sessions, record, transcript, replay[start].seq if replay else transcript.head_seq + 1)
        for stored in replay[start:]:
            transcript.apply(stored)
        if transcript.stale:
            self._view.reopen()
            return
        self.plan = await sessions.plan(session_id)
        self.synced = True
        transcript.set_active(self.is_active)
        fetch_older = None if whole else partial(fold_older, sessions, session_id, transcript)
        await self._view.show_transcript(transcript, fetch_older)
        self._view.paint_chrome()

    async def _follow_deltas(self, session_id: str) -> None:
        try:
            sessions = await self.services.ready()
        except CoreUnavailable:  # the log says why; live deltas have nothing to follow
            return
        with sessions.subscribe(session_id) as deltas:
            from agent_tui.core.api import events as ev  # see the module docstring

            async for delta in deltas:
                if isinstance(delta, ev.HeadAdvanced):
                    continue
                if self.transcript.apply_delta(delta) is not None and self.synced:
                    self.schedule_flush()

    # ------------------------------------------------------------------ painting

    def schedule_flush(self) -> None:
        if not self._flush_pending:
            self._flush_pending = True
            self._view.feed_later(self.services.timings.flush_interval_s, self._scheduled_flush)

    async def _scheduled_flush(self) -> None:
        """A key not on screen yet goes first (``keys_first``): this repaint looks again a frame later."""
        if self.services.keys_first.waiting:
            self._view.feed_later(RETRY_S, self._scheduled_flush)
            return
        await self.flush()

    async def flush(self) -> None:
        """Liveness from ``active()``, then one repaint of everything that changed since the last flush."""
        self._flush_pending = False
        if not self.synced:
            return
        self.services.quiet_gc.busy()  # output is moving: not the moment for a full collection
        active = self.is_active
        self.transcript.set_active(active)
        await self._view.repaint(active)

    async def poll(self) -> None:
        """Every ``POLL_S``: liveness and other sessions' asks change without events of this session."""
        sessions = self.services.sessions
        count = 0
        if sessions is not None:  # None: the core is not open yet, so no session is active either
            active = self.services.active()
            children = descendants(active, self.session_id)  # their asks are offered here, not counted
            self.child_asks = await child_asks(sessions, children)
            await self.subagents.track(sessions, self.session_id, children)
            for other in active:
                if other != self.session_id and other not in children:
                    count += len(await sessions.permissions.pending(other) or [])
        self.background_asks = count
        if self.synced:
            await self.flush()


def may_update_plan(stored: ev.StoredEvent) -> bool:
    """A settled call that carries a plan: the projection is read again (it decides whether it was ``todo``)."""
    from agent_tui.core.api import events as ev  # see the module docstring

    event = stored.event
    return isinstance(event, ev.ToolSucceeded) and "plan" in event.output.data


# ---------------------------------------------------------------------- segments


def segment_start(events: list[ev.StoredEvent], from_log_start: bool) -> int:
    """Index where a self-contained segment begins: the first busy period (else the first step)."""
    from agent_tui.core.api import events as ev  # see the module docstring

    if from_log_start:
        return 0
    for kind in (ev.ExecutionStarted, ev.StepStarted):
        for index, stored in enumerate(events):
            if isinstance(stored.event, kind):
                return index
    return 0


async def seed_for(sessions: SessionsPort, record: Any, transcript: Transcript, start_seq: int) -> None:
    """Seed ``transcript`` to start at ``start_seq`` with the session row (``record``) and the inbox."""
    from agent_tui.core.api import events as ev  # the facade answered: pydantic is loaded

    facts = SessionFacts(
        title=record.title,
        location=record.location,
        agent=record.agent,
        model=record.model,
        input_tokens=record.input_tokens,
        output_tokens=record.output_tokens,
        cost=record.cost or 0.0,
        unpriced_steps=(await sessions.usage(record.id, subagents=False)).total.unpriced_steps,
    )
    inbox = list(await sessions.pending(record.id))
    pending = [
        PendingInput(row.id, ev.prompt_text(row.prompt or []), Delivery(row.delivery or "steer"), row.admitted_seq)
        for row in inbox
        if row.kind == "prompt" and row.admitted_seq < start_seq
    ]
    compactions = [
        (row.id, row.admitted_seq) for row in inbox if row.kind == "compaction" and row.admitted_seq < start_seq
    ]
    transcript.seed(start_seq, facts, record.head_seq, pending, compactions)


async def read_range(sessions: SessionsPort, session_id: str, after: int, before: int) -> list[ev.StoredEvent]:
    """Durable events with ``after < seq < before``."""
    from agent_tui.core.api import events as ev  # see the module docstring

    out: list[ev.StoredEvent] = []
    async with aclosing(sessions.log(session_id, after=after)) as log:
        async for item in log:
            if not isinstance(item, ev.StoredEvent) or item.seq >= before:
                break
            out.append(item)
    return out


async def fold_older(sessions: SessionsPort, session_id: str, transcript: Transcript) -> int:
    """Fold the segment just before ``transcript.start_seq`` and prepend it; returns new blocks."""
    end = transcript.start_seq
    if end <= 1:
        return 0
    after = max(0, end - 1 - OLDER_EVENTS)
    events = await read_range(sessions, session_id, after, end)
    if not events:
        return 0
    start = segment_start(events, from_log_start=after == 0)
    older = Transcript(hidden=transcript.hidden)  # its own rewinds are in the newer segment
    older.seed(events[start].seq, SessionFacts(), counted_seq=end, inbox=[], compactions=[])  # totals: counted
    for stored in events[start:]:
        older.apply(stored)
    return len(transcript.prepend(older))
