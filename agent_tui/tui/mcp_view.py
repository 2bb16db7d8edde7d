"""MCP servers as the TUI shows them: ``/mcp`` lines, the status bar's count, a failure's notice. No Textual."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Protocol

from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_names import split_tool_name


class McpPort(Protocol):
    """What the TUI reads of the runtime's MCP servers (``Runtime`` implements it)."""

    def mcp_status(self) -> list[Any]: ...

    def watch_mcp(self, listener: Any) -> Any: ...

    def mcp_reader(self, location: Any, agent: str | None = None) -> Any:
        """What ``build_prompt`` reads ``@server:uri`` mentions with."""

    async def mcp_resources(self, location: Any, agent: str | None = None) -> dict[str, list[Any]]:
        """The ready servers' listed resources, by server (``@server:`` completion)."""

    async def mcp_prompt(self, location: Any, server: str, prompt: str, arguments: dict[str, str]) -> str: ...

    async def mcp_complete(
        self, location: Any, server: str, prompt: str, argument: str, value: str, context: dict[str, str] | None = None
    ) -> list[str]: ...


class McpServerState(Protocol):
    """What a listener of :meth:`McpPort.watch_mcp` is given: a server's status."""

    @property
    def fresh_failure(self) -> bool: ...


def _here(statuses: Iterable[Any], location: str) -> list[Any]:
    return [s for s in statuses if s.location == location]


def ready_count(statuses: Iterable[Any], location: str) -> tuple[int, int]:
    """(ready, configured) servers at ``location``."""
    here = _here(statuses, location)
    return sum(1 for s in here if s.state is McpState.READY), len(here)


def count_label(ready: int, total: int) -> str | None:
    """``mcp 2`` when all are ready, ``mcp 1/2`` when not; None without servers."""
    if not total:
        return None
    return f"mcp {ready}" if ready == total else f"mcp {ready}/{total}"


def state_label(status: Any) -> str:
    match status.state:
        case McpState.READY:
            label = f"ready with {len(status.tools)} tool{'s' if len(status.tools) != 1 else ''}"
            count = len(getattr(status, "resources", ()))
            return label + (f" and {count} resource{'s' if count != 1 else ''}" if count else "")
        case McpState.FAILED:
            return f"failed: {(status.error or '').splitlines()[0] if status.error else 'unknown reason'}"
        case state:
            return str(state.value)


def listing(statuses: Iterable[Any], location: str) -> list[tuple[str, str, str]]:
    """(server, transport and state, its tools) per server at ``location``, for ``/mcp``."""
    return [
        (s.name, f"{s.transport}{' · sandboxed' if s.sandboxed else ''} · {state_label(s)}", ", ".join(s.tools) or "—")
        for s in _here(statuses, location)
    ]


def failure_notice(status: Any) -> str:
    """One notice for a server that failed to start or died: the reason and its stderr tail."""
    return f"MCP server {status.name} {status.error or 'failed'}"


def new_notices(status: Any, told: set[tuple[str, str, str]]) -> list[str]:
    """The server's notices about tools it lists but agent-tui does not offer, not yet in ``told``
    (which it adds them to): each is shown once, however often the server's state changes."""
    fresh = []
    for skipped in getattr(status, "skipped", ()):
        key = (str(status.location), status.name, skipped)
        if key not in told:
            told.add(key)
            fresh.append(f"MCP server {status.name}: {skipped}")
    return fresh


def error_notices(status: Any, told: set[tuple[str, str, str]]) -> list[str]:
    """One notice per message the server logged at error level or above and not yet in ``told``:
    a server's log stays in ``/mcp`` and ``mcp.log`` otherwise, never on the transcript."""
    fresh = []
    for entry in getattr(status, "logs", ()):
        key = (str(status.location), status.name, f"log {entry.number}")
        if entry.is_error and key not in told:
            told.add(key)
            fresh.append(f"MCP server {status.name} logged {entry.level}: {entry.text}")
    return fresh


def log_line(entry: Any) -> str:
    """``12:03:04 warning db: slow query`` (local time; the logger name when the server gave one)."""
    at = time.strftime("%H:%M:%S", time.localtime(entry.at_ms / 1000))
    return f"{at} {entry.level} {entry.logger + ': ' if entry.logger else ''}{entry.text}"


def recent_logs(statuses: Iterable[Any], location: str) -> list[tuple[str, list[str]]]:
    """(server, its kept log lines, oldest first) for each server at ``location`` that logged anything."""
    return [(s.name, [log_line(e) for e in s.logs]) for s in _here(statuses, location) if getattr(s, "logs", ())]


def tool_label(name: str) -> str:
    """A tool block's name: ``mcp__notes__echo`` shows as ``notes/echo`` (server, then tool)."""
    split = split_tool_name(name)
    return f"{split[0]}/{split[1]}" if split else name
