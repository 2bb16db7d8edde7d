"""The write fence of the running drain: the lease token every write made inside it carries.

A drain on a shared database runs under a lease whose fencing token the database checks on every
insert (``store/pg/schema.py``'s ``event_fenced``). The token belongs to the busy period, not to a
store or a connection, so it travels in a :class:`~contextvars.ContextVar`: the coordinator sets it
around the period (``fencing``), and every write made inside it, in the period's task or a task
started from it (tools, publishes: tasks copy their context), reads it back (:func:`token_for`).
A task left over from an earlier period keeps the earlier token, so its writes are refused.

When the database refuses a token (:class:`StaleFence`: another host took the session over), the
writer reports it (:func:`fenced` does) and the holder stops its drain at once instead of at its
next renewal. On one machine (SQLite, the ``flock`` lease) no fence is set and nothing changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

from agent_tui.core.errors import StaleFence

T = TypeVar("T")


def _nobody() -> None:
    return None


@dataclass(frozen=True)
class Fence:
    """One tenure of one session's lease: the token its writes carry, and whom to tell when refused."""

    session_id: str
    token: int
    refused: Callable[[], None] = field(default=_nobody, compare=False)
    """Called when the database refuses this token: the holder lost the session and must stop."""


_current: ContextVar[Fence | None] = ContextVar("agent_tui_write_fence", default=None)


@contextmanager
def fencing(fence: Fence | None) -> Iterator[None]:
    """Writes made inside (and in tasks started inside) carry ``fence``; None clears an inherited one
    (a subagent's period started from its parent's drain has its own lease, or none)."""
    reset = _current.set(fence)
    try:
        yield
    finally:
        _current.reset(reset)


def current() -> Fence | None:
    """The fence of the period this code runs in, if it runs under a fenced lease."""
    return _current.get()


def token_for(session_id: str) -> int | None:
    """The token a write to ``session_id`` carries here: the period's, when it drains that session."""
    fence = _current.get()
    return fence.token if fence is not None and fence.session_id == session_id else None


def report(error: StaleFence) -> None:
    """A write carrying this period's token was refused: tell the holder (its drain stops)."""
    fence = _current.get()
    if fence is not None and (fence.session_id, fence.token) == (error.session_id, error.token):
        fence.refused()


async def fenced(session_id: str, write: Callable[[int | None], Awaitable[T]]) -> T:
    """Run ``write`` with the token of this context for ``session_id``; a refusal is reported, then raised.

    What a store's fenced write path wraps its append in: ``fenced(sid, lambda token: log.append(sid,
    events, token))``.
    """
    try:
        return await write(token_for(session_id))
    except StaleFence as error:
        report(error)
        raise
