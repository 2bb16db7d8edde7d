"""A session's row, defined once: the plain :class:`SessionRow` and the pydantic ``SessionRecord``.

The picker's first page is read before pydantic, aiosqlite or the event models are
imported (``store/peek.py``), so it needs a row type of the standard library; the
facade, the server and everything after the first frame use
``records.SessionRecord``. Both take their fields from :class:`SessionFields`, so
they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class SessionFields:
    """The ``session`` table's columns, in the order the list statement selects them."""

    id: str
    title: str | None
    location: str
    project_root: str
    agent: str
    model: str | None
    parent_id: str | None
    created: int
    updated: int
    message_count: int
    last_message: str | None
    input_tokens: int
    output_tokens: int
    cost: float
    head_seq: int
    spawned_by: str | None = None
    """A subagent's session: the parent session whose ``task`` call started it (else None)."""
    spawned_message_id: str | None = None
    spawned_call_id: str | None = None


SESSION_FIELDS: tuple[str, ...] = tuple(SessionFields.__annotations__)


class SessionRow(SessionFields):
    """A session row as read by the standard library: attribute access, compared by value."""

    def __init__(self, *values: Any) -> None:
        if len(values) != len(SESSION_FIELDS):
            raise TypeError(f"a session row has {len(SESSION_FIELDS)} fields, not {len(values)}")
        self.__dict__.update(zip(SESSION_FIELDS, values, strict=True))

    @classmethod
    def of(cls, row: Iterable[Any]) -> SessionRow:
        return cls(*row)

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in SESSION_FIELDS}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SessionRow) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return f"SessionRow({', '.join(f'{k}={v!r}' for k, v in self.as_dict().items())})"
