"""What the TUI needs from core: the Sessions facade, as a Protocol.

The TUI never touches the store or runner directly; anything implementing this
(the real facade, or a test double) can drive it. Every method that reads or
writes the store is a coroutine, as on the facade; ``active`` (the executor's
in-memory map), ``log`` (an async iterator) and ``subscribe`` (a context
manager) are plain calls. The types are ``core.api``'s, imported for the type
checker only: this module is on the first frame's path, and their modules
import pydantic. ``tests/fakes/test_sessions_contract.py`` has the type checker
hold both the facade and ``FakeSessions`` to it.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from agent_tui.core.api import (
        ApprovalRecord,
        ContextBreakdown,
        FilesPreview,
        ImportOutcome,
        InboxRecord,
        PermissionRecord,
        PlanRecord,
        Receipt,
        RewindPoint,
        RewindResult,
        RewindState,
        SessionRecord,
        SessionSummary,
        SessionUsage,
        Synced,
    )
    from agent_tui.core.api import events as ev
    from agent_tui.vocab.kinds import ApprovalMode


class Subscription(Protocol):
    """Live deltas and head wakes; closed when the view stops following."""

    def __aiter__(self) -> AsyncIterator[ev.LiveEvent]: ...

    def __enter__(self) -> Subscription: ...

    def __exit__(self, *exc: object) -> None: ...


class McpAsksPort(Protocol):
    """MCP servers' questions and sampling requests (``Sessions.asks``): each shown to a watcher while
    it watches (unwatched, declined at once) and answered by id."""

    def watch_elicitations(self, watcher: Callable[[Any], None]) -> Callable[[], None]: ...

    def answer_elicitation(self, request_id: str, action: str, content: dict[str, Any] | None = None) -> object: ...

    def watch_samplings(self, watcher: Callable[[Any], None]) -> Callable[[], None]: ...

    def answer_sampling(self, request_id: str, approve: bool) -> None: ...


class PermissionsPort(Protocol):
    """The permission gate's asks and the saved "always" approvals (``Sessions.permissions``)."""

    async def pending(self, session_id: str) -> list[PermissionRecord]: ...  # the asks waiting for a reply

    async def reply(self, request_id: str, reply: str, message: str | None = None) -> None: ...

    async def approvals(self, location: str | Path) -> list[ApprovalRecord]: ...  # "always", saved here

    async def revoke_approvals(
        self, location: str | Path, action: str | None = None, pattern: str | None = None
    ) -> list[ApprovalRecord]: ...


class TransferPort(Protocol):
    """Sessions in and out as files (``Sessions.transfer``)."""

    async def export(self, session_id: str, format: str = "jsonl") -> str: ...  # the text of the export

    async def import_foreign(  # another agent's session file as a new session (or the one made before)
        self, agent: str, text: str, *, path: str, location: str | Path | None = None, again: bool = False
    ) -> ImportOutcome: ...


class SessionsPort(Protocol):
    # ``builtins.list``: the method ``list`` shadows the name in this class's scope
    async def create(
        self,
        id: str | None = None,
        *,
        location: str,
        title: str | None = None,
        agent: str | None = None,
        model: str | None = None,
    ) -> SessionRecord: ...

    async def prompt(
        self,
        session_id: str,
        prompt: Sequence[Any],
        id: str | None = None,
        delivery: str = "steer",
        resume: bool = True,
    ) -> Receipt: ...

    async def get(self, session_id: str) -> SessionRecord: ...  # the session row: names, counters, head_seq

    async def pending(
        self, session_id: str
    ) -> builtins.list[InboxRecord]: ...  # unpromoted inbox rows, admission order

    async def withdraw(self, session_id: str, input_id: str) -> None: ...

    async def shell(self, session_id: str, command: str) -> str: ...  # ``!command``: run by the bash tool, no model

    async def reorder_queue(self, session_id: str, order: Sequence[str]) -> None: ...  # every queued input id, once

    async def pause_queue(self, session_id: str, paused: bool = True) -> None: ...

    async def select_model(self, session_id: str, model: str) -> None: ...

    async def select_agent(self, session_id: str, agent: str) -> None: ...

    async def compact(self, session_id: str) -> Receipt: ...

    async def interrupt(self, session_id: str, reason: str = "user") -> None: ...

    async def wake(self, session_id: str) -> None: ...  # run pending input if the session is idle

    async def shutdown(self) -> None: ...  # interrupt every running session (``shutdown``) and wait for them

    def active(self) -> dict[str, dict[str, Any]]: ...

    def choose_approval(self, session_id: str, mode: ApprovalMode) -> None: ...  # from its next permission check

    def approval(self, session_id: str) -> ApprovalMode | None: ...  # chosen here; None: the config's

    async def latest(self, location: str) -> SessionRecord | None: ...  # the newest session here (``--continue``)

    async def list(
        self,
        location: str | None = None,
        search: str | None = None,
        limit: int = 50,
        offset: int = 0,
        top_level: bool = False,  # leave out subagents' sessions
    ) -> builtins.list[SessionSummary]: ...

    async def children(self, session_ids: Sequence[str]) -> builtins.list[SessionSummary]: ...  # subagents' sessions

    def log(
        self, session_id: str, after: int | None = None, follow: bool = False
    ) -> AsyncGenerator[ev.StoredEvent | Synced, None]: ...

    def subscribe(self, session_id: str) -> Subscription: ...

    async def usage(
        self, session_id: str, subagents: bool = True
    ) -> SessionUsage: ...  # tokens and cost, subagents' sessions included
    async def plan(self, session_id: str) -> PlanRecord: ...  # the live plan: the newest visible ``todo`` checklist

    async def context_breakdown(
        self,
        session_id: str | None = None,
        *,
        location: str | Path | None = None,
        model: str | None = None,
        agent: str | None = None,
    ) -> ContextBreakdown: ...  # what the next request would hold (``/context``); None: a first request there

    @property
    def permissions(self) -> PermissionsPort: ...  # the permission asks, answered by id, and saved approvals

    @property
    def asks(self) -> McpAsksPort: ...  # MCP servers' questions and sampling requests, watched and answered

    async def rewind_state(self, session_id: str) -> RewindState: ...  # hidden seq ranges, every rewind and undo

    async def rewind_points(self, session_id: str) -> builtins.list[RewindPoint]: ...  # the prompts, newest first

    async def can_undo_rewind(self, session_id: str) -> bool: ...

    async def rewind_preview(self, session_id: str, message_id: str) -> FilesPreview: ...  # changes nothing

    async def rewind(self, session_id: str, message_id: str, mode: str = "both") -> RewindResult: ...

    async def undo_rewind(self, session_id: str) -> RewindResult: ...

    async def fork(self, session_id: str, at: str | None = None) -> SessionRecord: ...  # the new session's row

    async def lineage(self, session_id: str) -> builtins.list[tuple[str, int]]: ...  # [(ancestor, last seq it gave)]

    @property
    def transfer(self) -> TransferPort: ...  # sessions in and out as files: export, another agent's import

    async def rename(self, session_id: str, title: str) -> SessionRecord: ...  # the session's row

    async def delete(self, session_id: str) -> int: ...  # refused while it runs or has forks
