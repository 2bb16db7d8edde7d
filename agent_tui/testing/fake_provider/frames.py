"""A rendered response: SSE frames split into prelude, content and epilogue.

Failures are placed after N *content* frames, so a script can say "break after
the third chunk" the same way for both wire formats.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event; ``data`` is JSON-encoded unless it is already a string."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


@dataclass
class Rendered:
    prelude: list[bytes] = field(default_factory=list)
    content: list[bytes] = field(default_factory=list)
    epilogue: list[bytes] = field(default_factory=list)


@dataclass(frozen=True)
class HttpError:
    """A non-streaming error answer in the provider's own body shape."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
