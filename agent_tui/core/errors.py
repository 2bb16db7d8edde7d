"""The store's one-line errors, raised on every floor of core.

Their own module, below everything: projections, the inbox and history raise
them too, and importing them must not pull in SQLite connections.
"""

from __future__ import annotations

from pathlib import Path


class StoreError(Exception):
    """Base of every store failure; ``str(error)`` is one line for the CLI."""


class InvalidRequest(StoreError):
    """A caller error the facade refuses before anything is written; ``problems``: each value that
    does not fit, when the request was well-formed but its values are not (an answer's form)."""

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


class DatabaseCorrupt(StoreError):
    def __init__(self, path: Path | str, detail: str) -> None:
        super().__init__(f"database {path} is corrupt or not an agent-tui database ({detail})")


class DatabaseTooNew(StoreError):
    def __init__(self, path: Path | str, found: int, supported: int) -> None:
        super().__init__(
            f"database {path} has schema version {found}, newer than this agent-tui "
            f"understands ({supported}); upgrade agent-tui"
        )


class DatabaseLocked(StoreError):
    def __init__(self, path: Path | str, timeout_ms: int) -> None:
        super().__init__(f"database {path} is locked by another process (waited {timeout_ms} ms)")


class DatabaseUnavailable(StoreError):
    def __init__(self, path: Path | str, detail: str) -> None:
        super().__init__(f"cannot open database {path}: {detail}")


class DatabaseUnreachable(DatabaseUnavailable):
    """The configured database server (``storage.url``) cannot be reached, refuses the connection,
    or its driver (the ``postgres`` extra) is not installed: nothing was read or written."""

    exit_code = 6
    """What every command exits with for it (``run``, ``serve``, the window, the store commands),
    so a script tells a down server from any other failure."""


class UnknownSession(StoreError):
    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session: {session_id}")
        self.session_id = session_id


class SessionExists(StoreError):
    def __init__(self, session_id: str) -> None:
        super().__init__(f"session {session_id} already exists")


class EventRejected(StoreError):
    """A projector refused an event (e.g. promoting an unknown input); nothing was written."""


class UnknownInput(EventRejected):
    """An event names an inbox row that this session does not have."""


class AdmissionConflict(StoreError):
    """An input id reused for a different session, prompt, delivery or kind."""


class LeaseHeld(StoreError):
    """Another owner holds the session's lease and it has not expired."""

    def __init__(self, session_id: str, owner: str, expires_ms: int) -> None:
        super().__init__(f"session {session_id} is run by {owner} (lease valid until {expires_ms} ms)")
        self.session_id = session_id
        self.owner = owner
        self.expires_ms = expires_ms


class StaleFence(StoreError):
    """A write or renewal carrying a fencing token that is no longer the session's lease: another
    owner took the session over (or the lease was released), so this writer must stop."""

    def __init__(self, session_id: str, token: int) -> None:
        super().__init__(f"session {session_id}: fencing token {token} is stale; another owner took over")
        self.session_id = session_id
        self.token = token


class CorruptEvent(StoreError):
    def __init__(self, session_id: str, seq: int, detail: str) -> None:
        super().__init__(f"stored event {session_id}#{seq} is unreadable: {detail}")


class SessionBusy(StoreError):
    """An operation on a session's past is refused for now: the session is running (rewind, fork
    at its head, delete) or still has forks (delete); the message says why and what to do."""


class CopyConflict(StoreError):
    """``db copy``: the destination holds a different session under the id, or one with events the
    source lacks, or it changed during the copy. Nothing of that session is overwritten."""

    def __init__(self, session_id: str, detail: str) -> None:
        super().__init__(f"session {session_id}: {detail}")
        self.session_id = session_id


class CopyMismatch(StoreError):
    """``db copy``: after copying, the destination's count or checksum of a session's events is not the source's."""

    def __init__(self, session_id: str, detail: str) -> None:
        super().__init__(f"session {session_id}: {detail}")
        self.session_id = session_id
