"""What a server logs (``notifications/message``): to ``mcp.log`` and kept, the last few per server, for ``/mcp``.

A server's log is its own business: it never reaches the transcript, except
that a message at ``error`` or above is worth one notice (``McpLogEntry.is_error``),
the way a server's failure is. The records go to the ``mcp.servers.<name>``
logger, a child of the SDK's ``mcp`` logger, so ``sdk_log`` already sends them
to the log file and never to the terminal.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

from agent_tui.vocab.clock import Clock, SystemClock

KEPT = 50
"""Messages kept per server for ``/mcp`` and ``GET /api/mcp``; older ones are only in the log file."""

MAX_TEXT = 2_000
"""A message longer than this is cut: a server may log whole payloads."""

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
_numbers = itertools.count(1)  # process-wide: a notice is told once even across a server's restarts


@dataclass(frozen=True)
class McpLogEntry:
    """One message a server logged."""

    number: int
    """Unique in this process: what a notice already shown is remembered by."""
    at_ms: int
    level: str
    """The MCP level: debug, info, notice, warning, error, critical, alert, emergency."""
    logger: str | None
    text: str

    @property
    def is_error(self) -> bool:
        return _LEVELS.get(self.level, logging.INFO) >= logging.ERROR


def _text(data: Any) -> str:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


class ServerLog:
    """The last ``KEPT`` messages of one server, each also written to ``mcp.log``."""

    def __init__(self, server: str, clock: Clock | None = None) -> None:
        self._server = server
        self._clock = clock or SystemClock()
        self._logger = logging.getLogger(f"mcp.servers.{server}")
        self._kept: deque[McpLogEntry] = deque(maxlen=KEPT)

    def record(self, level: str, data: Any, logger: str | None = None) -> McpLogEntry:
        entry = McpLogEntry(next(_numbers), self._clock.now_ms(), level, logger, _text(data))
        source = f"{self._server}/{logger}" if logger else self._server
        self._logger.log(_LEVELS.get(level, logging.INFO), "%s: %s", source, entry.text)
        self._kept.append(entry)
        return entry

    @property
    def entries(self) -> tuple[McpLogEntry, ...]:
        return tuple(self._kept)
