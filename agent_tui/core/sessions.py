"""The Sessions facade: the only door into core (DESIGN.md §4).

The TUI, the server and the CLI call these methods and nothing below them,
or the methods of the facade's helper objects: each holds one group of one idea
in the room it belongs to (``asks`` and ``permissions`` in ``host/``,
``context_entries`` and ``answers`` in ``request/``, ``transfer`` in ``transfer/``).
Every state change is a durable event published through the store; reads
come from projections; execution is delegated to an :class:`Executor`
(the runner's coordinator, or the idle default).
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from agent_tui.core.errors import InvalidRequest, UnknownSession
from agent_tui.core.history import fork as forks
from agent_tui.core.history.lineage import lineage as walk_lineage
from agent_tui.core.history.rewind import FilesPreview, Rewinder, RewindPoint, RewindResult, RewindState, points
from agent_tui.core.host.mcp_asks import McpAsks
from agent_tui.core.host.permission_asks import PermissionAsks
from agent_tui.core.inbox.admission import Receipt, admit_compaction, admit_prompt, prompt_parts
from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.log.records import (
    InboxRecord,
    MessageRecord,
    PlanRecord,
    SessionRecord,
    SessionSummary,
)
from agent_tui.core.log.usage_records import SessionUsage, UsageGrouping, UsageRow
from agent_tui.core.request.answers import Answers
from agent_tui.core.request.context_entries import ContextEntries
from agent_tui.core.run.executor import Executor, IdleExecutor
from agent_tui.core.settings import paths
from agent_tui.core.settings.config import Settings
from agent_tui.core.store import tail
from agent_tui.core.store.bus import Bus, Subscription
from agent_tui.core.store.open import open_store
from agent_tui.core.store.store import Store
from agent_tui.core.store.writer import Tx
from agent_tui.core.transfer.session_transfer import SessionTransfer
from agent_tui.core.workspace.snapshots import WorkspaceSnapshots
from agent_tui.vocab.kinds import ApprovalMode, Delivery, RewindMode

if TYPE_CHECKING:
    from agent_tui.core.request.breakdown import ContextBreakdown
    from agent_tui.core.run.context_view import ContextProbe

HISTORY_DEFAULT = 50
HISTORY_MAX = 100
TITLE_MAX = 200


class History(BaseModel):
    model_config = ConfigDict(frozen=True)
    data: list[ev.StoredEvent]
    has_more: bool


class Sessions:
    def __init__(
        self,
        store: Store,
        bus: Bus | None = None,
        settings: Settings | None = None,
        executor: Executor | None = None,
    ) -> None:
        if bus is not None and bus is not store.bus:
            raise ValueError("the bus must be the store's bus (Store.open(..., bus=bus))")
        self._store = store
        self._bus = store.bus
        self._settings = settings or Settings()
        self._executor: Executor = executor or IdleExecutor()
        self.snapshots = WorkspaceSnapshots()
        self.context_probe: ContextProbe | None = None
        """The runtime's services for :meth:`context_breakdown` (None: read the config and tools directly)."""
        self._approvals: dict[str, ApprovalMode] = {}
        self.on_approval: Callable[[str], None] | None = None
        """Told the session whose mode :meth:`choose_approval` changed (the runtime settles the
        pending asks the new mode covers)."""
        self.cluster_view: Callable[[dict[str, dict[str, Any]]], dict[str, dict[str, Any]]] | None = None
        """What ``active`` adds the other hosts' running sessions with (the runtime's ``ClusterHost``)."""
        self.asks = McpAsks()
        """MCP servers' open questions and sampling requests in this process: the front ends watch and
        answer them; the runtime hands each tool call its askers."""
        self.permissions = PermissionAsks(
            store, self.get, lambda session_id: self._bus.subscribe(session_id, deltas=False)
        )
        """The permission gate's pending asks, answered by id, and the projects' saved "always" approvals."""
        self.context_entries = ContextEntries(store, self.get)
        """The API's ``api/<name>`` context entries: ``put``, ``delete``, ``read``."""
        self.answers = Answers(store, self.get)
        """What the session answered a headless caller, and the output schema it must answer to here."""
        self.transfer = SessionTransfer(store, self.get)
        """Sessions in and out as files: ``export``, ``import_session``, ``import_foreign``."""

    def set_executor(self, executor: Executor) -> None:
        """Install the runner's coordinator (it is built after the facade)."""
        self._executor = executor

    @property
    def _rewinder(self) -> Rewinder:
        return Rewinder(self._store, self._executor, self.snapshots)

    @property
    def database(self) -> str:
        """The database behind this facade, for messages: the SQLite file or the server's URL (no password)."""
        return self._store.where

    async def close(self) -> None:
        await self._store.close()

    async def shutdown(self) -> None:
        """Interrupt every running session with reason ``shutdown`` and wait for their terminal events."""
        await self._executor.shutdown()

    async def rebuild(self) -> int:
        """Delete every projection and replay the event log through the projectors; returns the event count."""
        return await self._store.rebuild()

    # -- sessions ---------------------------------------------------------------
    async def get(self, session_id: str) -> SessionRecord:
        record = await self._store.session(session_id)
        if record is None:
            raise UnknownSession(session_id)
        return record

    async def create(
        self,
        id: str | None = None,
        *,
        location: str | Path,
        title: str | None = None,
        agent: str | None = None,
        model: str | None = None,
    ) -> SessionRecord:
        """Absent id creates; a reused id returns the existing session as it is."""
        session_id = id or ids.session_id()
        where = await asyncio.to_thread(lambda: Path(location).resolve())
        root = await asyncio.to_thread(paths.project_root, where)
        event = ev.SessionCreated(
            location=str(where),
            project_root=str(root),
            title=title,
            agent=agent or self._settings.agent,
            model=model or self._settings.model,
        )

        def job(tx: Tx) -> None:
            if tx.head(session_id) is None:
                tx.append(session_id, event)

        await self._store.transact(job)
        return await self.get(session_id)

    async def rename(self, session_id: str, title: str) -> SessionRecord:
        """A new title (one line); the first prompt no longer names the session."""
        clean = " ".join(title.split())
        if not clean:
            raise InvalidRequest("a session title cannot be empty")
        if len(clean) > TITLE_MAX:
            raise InvalidRequest(f"a session title has at most {TITLE_MAX} characters, not {len(clean)}")
        await self._store.publish(session_id, ev.SessionRenamed(title=clean))
        return await self.get(session_id)

    async def delete(self, session_id: str) -> int:
        """Remove the session's events, projections and snapshots; refused while it runs or has forks."""
        from agent_tui.core.history.delete import delete

        return await delete(self._store, self._executor, self.snapshots, await self.get(session_id))

    async def select_model(self, session_id: str, model: str) -> None:
        """Applies from the next step; the current step keeps its model."""
        await self._store.publish(session_id, ev.ModelSelected(model=model))

    async def select_agent(self, session_id: str, agent: str) -> None:
        await self._store.publish(session_id, ev.AgentSelected(agent=agent))

    async def latest(self, location: str | Path) -> SessionRecord | None:
        """The most recently updated session at ``location``, if any (``--continue``)."""
        where = await asyncio.to_thread(lambda: Path(location).resolve())
        return await self._store.most_recent_session(where)

    async def list(
        self,
        location: str | Path | None = None,
        search: str | None = None,
        limit: int = 50,
        offset: int = 0,
        top_level: bool = False,
    ) -> list[SessionSummary]:
        """Newest first; ``top_level`` leaves out subagents' sessions (see :meth:`children`)."""
        return await self._store.list_sessions(location, search, limit, offset, top_level)

    async def children(self, session_ids: str | Sequence[str]) -> builtins.list[SessionSummary]:
        """The subagents' sessions that these sessions' ``task`` calls started, oldest first."""
        wanted = [session_ids] if isinstance(session_ids, str) else builtins.list(session_ids)
        return await self._store.children(wanted)

    # -- input --------------------------------------------------------------------
    async def prompt(
        self,
        session_id: str,
        prompt: str | Sequence[Any],
        id: str | None = None,
        delivery: Delivery | str = Delivery.STEER,
        resume: bool = True,
    ) -> Receipt:
        """Admit a prompt (idempotent by id), then wake the session unless ``resume`` is False."""
        parts = prompt_parts(prompt)
        try:
            mode = Delivery(delivery)
        except ValueError:
            raise InvalidRequest(f"delivery must be steer or queue, not {delivery!r}") from None
        input_id = id or ids.message_id()
        receipt, _ = await self._store.transact(lambda tx: admit_prompt(tx, session_id, input_id, parts, mode))
        if resume:
            await self._executor.wake(session_id)
        return receipt

    async def shell(self, session_id: str, command: str, id: str | None = None, resume: bool = True) -> str:
        """Admit ``!command``: it runs through the bash tool (no model step) when the session would go
        idle, and the model sees it on its next turn. Returns the input id."""
        if not command.strip():
            raise InvalidRequest("the shell command is empty")
        input_id = id or ids.message_id()
        await self._store.publish(session_id, ev.ShellAdmitted(input_id=input_id, command=command))
        if resume:
            await self._executor.wake(session_id)
        return input_id

    async def reorder_queue(self, session_id: str, order: Sequence[str]) -> None:
        """Promote the queued inputs in ``order`` (every queued input id, once); refused when the
        queue has changed meanwhile."""
        await self._store.publish(session_id, ev.QueueReordered(order=list(order)))

    async def pause_queue(self, session_id: str, paused: bool = True) -> None:
        """Paused: queued inputs wait when the session goes idle; resuming runs the next one."""
        await self._store.publish(session_id, ev.QueuePaused(paused=paused))
        if not paused:
            await self._executor.wake(session_id)

    async def withdraw(self, session_id: str, input_id: str) -> None:
        """Take back an unpromoted input; refused once it is promoted."""
        await self._store.publish(session_id, ev.PromptWithdrawn(input_id=input_id))

    async def pending(self, session_id: str) -> builtins.list[InboxRecord]:
        await self.get(session_id)
        return await self._store.pending_inputs(session_id)

    async def compact(self, session_id: str, resume: bool = True) -> Receipt:
        """Admit one manual compaction barrier, or return the one already pending."""
        input_id = ids.message_id()
        receipt, _ = await self._store.transact(lambda tx: admit_compaction(tx, session_id, input_id))
        if resume:
            await self._executor.wake(session_id)
        return receipt

    # -- execution (delegated) ------------------------------------------------------
    async def interrupt(self, session_id: str, reason: str = "user") -> None:
        await self._executor.interrupt(session_id, reason)

    async def run(self, session_id: str) -> Any:
        """Explicit resume; returns whatever the executor's drain reports."""
        await self.get(session_id)
        return await self._executor.run(session_id)

    async def resume(self, session_id: str) -> bool:
        """Explicit resume that returns once it runs (True: started here, False: joined)."""
        await self.get(session_id)
        return await self._executor.resume(session_id)

    async def wake(self, session_id: str) -> None:
        await self._executor.wake(session_id)

    def active(self) -> dict[str, dict[str, Any]]:
        """Every session running here; on a shared database also those running on other hosts, as the
        last read of their leases shows them (marked ``"view": "cluster"``, with ``owner`` and ``expires_ms``)."""
        local = self._executor.active()
        return local if self.cluster_view is None else self.cluster_view(local)

    def choose_approval(self, session_id: str, mode: ApprovalMode) -> None:
        """The session's approval mode in this process, from its next permission check; a pending
        ask the new mode covers is answered "once". Not logged: a later launch, or another process,
        starts from the config's mode, so no session is left in a wider mode than its launch asks for."""
        self._approvals[session_id] = ApprovalMode(mode)
        if self.on_approval is not None:
            self.on_approval(session_id)

    def approval(self, session_id: str) -> ApprovalMode | None:
        """The mode :meth:`choose_approval` chose for the session here; None: the config's."""
        return self._approvals.get(session_id)

    # -- reading ---------------------------------------------------------------------
    async def messages(
        self, session_id: str, after: int | None = None, before: int | None = None, limit: int | None = None
    ) -> builtins.list[MessageRecord]:
        await self.get(session_id)
        return await self._store.messages(session_id, after=after, before=before, limit=limit)

    async def history(self, session_id: str, after: int | None = None, limit: int = HISTORY_DEFAULT) -> History:
        """A finite page of durable events after ``after`` (exclusive)."""
        if not 1 <= limit <= HISTORY_MAX:
            raise InvalidRequest(f"history limit must be between 1 and {HISTORY_MAX}, not {limit}")
        await self.get(session_id)
        rows = await self._store.events(session_id, after=after, limit=limit + 1)
        return History(data=rows[:limit], has_more=len(rows) > limit)

    async def plan(self, session_id: str) -> PlanRecord:
        """The live plan: the newest visible ``todo`` checklist (a rewind or fork brings back the one it had)."""
        await self.get(session_id)
        return await self._store.plan(session_id)

    async def usage(self, session_id: str, subagents: bool = True) -> SessionUsage:
        """What the session spent, with its subagents' sessions unless not ``subagents``: in all, per
        model, per agent (``/usage``; the status bar's count of unpriced steps asks for the session alone).

        Spent stays spent: a rewound step still counts, a fork counts only its own steps."""
        await self.get(session_id)
        return await self._store.session_usage(session_id, subagents)

    async def usage_report(
        self, by: UsageGrouping = "day", since_ms: int | None = None, until_ms: int | None = None
    ) -> builtins.list[UsageRow]:
        """Every session's steps grouped ``by`` time, model, agent, project or session (``agent-tui usage``);
        ``since_ms`` inclusive, ``until_ms`` exclusive."""
        return await self._store.usage_report(by, since_ms, until_ms)

    async def context_breakdown(
        self,
        session_id: str | None = None,
        *,
        location: str | Path | None = None,
        model: str | None = None,
        agent: str | None = None,
    ) -> ContextBreakdown:
        """What the session's next request would hold, part by part, in estimated tokens; nothing is
        written. Without ``session_id``: a first request at ``location`` (``model`` and ``agent``
        as a new session there would have them, else the location's settings decide)."""
        from agent_tui.core.run.context_view import first_request, next_request, standalone_probe

        probe = self.context_probe or standalone_probe()
        if session_id is None:
            return await first_request(self._store, location, model, agent, probe)
        return await next_request(self._store, await self.get(session_id), probe)

    def log(
        self, session_id: str, after: int | None = None, follow: bool = False
    ) -> AsyncGenerator[ev.StoredEvent | tail.Synced, None]:
        """Replay, one ``Synced`` marker, then (with ``follow``) the live tail."""
        return tail.log(self._store, session_id, after=after, follow=follow)

    def subscribe(self, session_id: str | None = None, *, deltas: bool = True) -> Subscription:
        """Live deltas plus ``HeadAdvanced`` wakes for one session (or all)."""
        return self._bus.subscribe(session_id, deltas=deltas)

    # -- rewind ----------------------------------------------------------------------
    async def rewind_points(self, session_id: str) -> builtins.list[RewindPoint]:
        """The session's visible prompts, newest first: where a rewind can go."""
        await self.get(session_id)
        return points(await self._store.messages(session_id))

    async def rewind_preview(self, session_id: str, message_id: str) -> FilesPreview:
        """The files a files rewind to ``message_id`` would change, with the diff; changes nothing."""
        return await self._rewinder.preview(await self.get(session_id), message_id)

    async def rewind(self, session_id: str, message_id: str, mode: RewindMode | str = RewindMode.BOTH) -> RewindResult:
        """Back to just before the prompt ``message_id``: the conversation, the files, or both."""
        try:
            chosen = RewindMode(mode)
        except ValueError:
            raise InvalidRequest(f"rewind mode must be both, conversation or files, not {mode!r}") from None
        return await self._rewinder.rewind(await self.get(session_id), message_id, chosen)

    async def undo_rewind(self, session_id: str) -> RewindResult:
        """Take the last rewind back, files included (it must be the last thing that happened)."""
        return await self._rewinder.undo(await self.get(session_id))

    async def rewind_state(self, session_id: str) -> RewindState:
        """The seq ranges rewinds hide, and every rewind and undo (a fork's ancestors' included, up to
        the point they gave it): for views that fold the log."""
        await self.get(session_id)
        return await self._rewinder.state(session_id, await walk_lineage(self._store, session_id))

    # -- forks -------------------------------------------------------------------------
    async def fork(self, session_id: str, at: str | None = None) -> SessionRecord:
        """A new session with this one's history (up to just before the prompt ``at``, or all of it)."""
        parent = await self.get(session_id)
        return await self.get(await forks.fork(self._store, self._executor, self._rewinder, parent, at))

    async def lineage(self, session_id: str) -> builtins.list[tuple[str, int]]:
        """The sessions a fork's history comes from, oldest first, each with the last seq it gave."""
        await self.get(session_id)
        return await walk_lineage(self._store, session_id)

    async def can_undo_rewind(self, session_id: str) -> bool:
        return await self._rewinder.last_undoable(await self.get(session_id)) is not None


async def open_sessions(
    settings: Settings | None = None, executor: Executor | None = None, *, path: Path | None = None
) -> Sessions:
    """Open the configured store (``storage.url``, else the SQLite file) and wrap it in the facade."""
    settings = settings or Settings()
    store = await open_store(settings.storage, path or paths.database_path())
    return Sessions(store, settings=settings, executor=executor)
