"""What the TUI needs from core: the Sessions facade, as a Protocol.

The TUI never touches the store or runner directly; anything implementing this
(the real facade, or a test double) can drive it. Methods may be sync or async:
callers go through :func:`call`.
"""

from __future__ import annotations

import inspect
from typing import Any, AsyncIterator, Protocol, TypeVar

T = TypeVar("T")


class Subscription(Protocol):
    """Live deltas and head wakes; closed when the view stops following."""

    def __aiter__(self) -> AsyncIterator[Any]: ...

    def __enter__(self) -> Subscription: ...

    def __exit__(self, *exc: object) -> None: ...


class SessionsPort(Protocol):
    def create(self, id: str | None = None, *, location: str, title: str | None = None,
               agent: str | None = None, model: str | None = None) -> Any: ...  # fmt: skip

    def prompt(self, session_id: str, prompt: list[Any], id: str | None = None,
               delivery: str = "steer", resume: bool = True) -> Any: ...  # fmt: skip

    def get(self, session_id: str) -> Any: ...  # the session row: names, counters, head_seq

    def pending(self, session_id: str) -> Any: ...  # unpromoted inbox rows, admission order

    def withdraw(self, session_id: str, input_id: str) -> Any: ...

    def shell(self, session_id: str, command: str) -> Any: ...

    def reorder_queue(self, session_id: str, order: list[str]) -> Any: ...  # every queued input id, once

    def pause_queue(self, session_id: str, paused: bool = True) -> Any: ...  # ``!command``: run by the bash tool, no model

    def select_model(self, session_id: str, model: str) -> Any: ...

    def select_agent(self, session_id: str, agent: str) -> Any: ...

    def compact(self, session_id: str) -> Any: ...

    def interrupt(self, session_id: str, reason: str = "user") -> Any: ...

    def wake(self, session_id: str) -> Any: ...  # run pending input if the session is idle

    def active(self) -> dict[str, dict[str, str]]: ...

    def latest(self, location: str) -> Any: ...  # the newest session here, or None (``--continue``)

    def list(self, location: str | None = None, search: str | None = None,
             limit: int = 50, offset: int = 0) -> Any: ...  # fmt: skip

    def log(self, session_id: str, after: int | None = None, follow: bool = False) -> AsyncIterator[Any]: ...

    def subscribe(self, session_id: str) -> Subscription: ...

    def permissions(self, session_id: str) -> Any: ...

    def reply_permission(self, request_id: str, reply: str, message: str | None = None) -> Any: ...

    def rewind_state(self, session_id: str) -> Any: ...  # hidden seq ranges, every rewind and undo

    def rewind_points(self, session_id: str) -> Any: ...  # the prompts, newest first

    def can_undo_rewind(self, session_id: str) -> Any: ...

    def rewind_preview(self, session_id: str, message_id: str) -> Any: ...  # files + diff; changes nothing

    def rewind(self, session_id: str, message_id: str, mode: str = "both") -> Any: ...

    def undo_rewind(self, session_id: str) -> Any: ...

    def fork(self, session_id: str, at: str | None = None) -> Any: ...  # the new session's row

    def lineage(self, session_id: str) -> Any: ...  # [(ancestor, last seq it gave)], oldest first

    def export(self, session_id: str, format: str = "jsonl") -> Any: ...  # the text of the export

    def rename(self, session_id: str, title: str) -> Any: ...  # the session's row

    def delete(self, session_id: str) -> Any: ...  # refused while it runs or has forks


async def call(value: T | Any) -> Any:
    """Await ``value`` if the facade returned an awaitable."""
    if inspect.isawaitable(value):
        return await value
    return value
