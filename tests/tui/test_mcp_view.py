"""How MCP servers read in the TUI: the status count, /mcp rows, a failure's notice, tool block names."""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.tui.mcp_view import count_label, failure_notice, listing, ready_count, tool_label
from agent_tui.vocab.kinds import McpState


@dataclass
class Status:
    name: str
    state: McpState
    tools: tuple[str, ...] = ()
    error: str | None = None
    location: str = "/p"
    transport: str = "stdio"
    sandboxed: bool = False
    resources: tuple[str, ...] = ()


SERVERS = [
    Status("notes", McpState.READY, ("echo",)),
    Status("docs", McpState.FAILED, error="failed to start: exit 2\nmissing API token", transport="http"),
    Status("db", McpState.STARTING, sandboxed=True),
    Status("elsewhere", McpState.READY, location="/q"),
]


def test_the_count_is_of_ready_servers_at_the_location() -> None:
    assert ready_count(SERVERS, "/p") == (1, 3)
    assert count_label(*ready_count(SERVERS, "/p")) == "mcp 1/3"
    assert count_label(*ready_count(SERVERS, "/q")) == "mcp 1"
    assert count_label(*ready_count(SERVERS, "/none")) is None


def test_slash_mcp_rows_name_state_and_tools() -> None:
    assert listing(SERVERS, "/p") == [
        ("notes", "stdio · ready with 1 tool", "echo"),
        ("docs", "http · failed: failed to start: exit 2", "—"),
        ("db", "stdio · sandboxed · starting", "—"),
    ]


def test_slash_mcp_counts_the_resources_a_server_listed() -> None:
    notes = Status("notes", McpState.READY, ("edit",), resources=("notes://readme", "notes://day/{n}"))
    one = Status("one", McpState.READY, resources=("a://b",))
    assert listing([notes, one], "/p") == [
        ("notes", "stdio · ready with 1 tool and 2 resources", "edit"),
        ("one", "stdio · ready with 0 tools and 1 resource", "—"),
    ]


def test_a_failure_notice_carries_the_stderr_tail() -> None:
    assert failure_notice(SERVERS[1]) == "MCP server docs failed to start: exit 2\nmissing API token"


def test_tool_blocks_name_the_server() -> None:
    assert tool_label("mcp__notes__echo") == "notes/echo"
    assert tool_label("bash") == "bash" and tool_label("mcp__broken") == "mcp__broken"


def test_each_tool_notice_of_a_server_is_shown_once() -> None:
    from agent_tui.tui.mcp_view import new_notices

    told: set[tuple[str, str, str]] = set()
    jobs = Status("jobs", McpState.READY, ("peek",))
    jobs.skipped = ("tool run is not offered: it requires task-augmented execution",)  # type: ignore[attr-defined]
    assert new_notices(jobs, told) == ["MCP server jobs: tool run is not offered: it requires task-augmented execution"]
    assert new_notices(jobs, told) == []  # the next state change of the same server says nothing again
    assert new_notices(Status("notes", McpState.READY), told) == []


def test_a_logged_error_is_one_notice_and_every_kept_message_is_a_slash_mcp_line() -> None:
    from agent_tui.tools.mcp.server_log import ServerLog
    from agent_tui.tui.mcp_view import error_notices, recent_logs
    from agent_tui.vocab.clock import ManualClock

    log = ServerLog("db", ManualClock())
    log.record("info", "connected", "pool")
    log.record("error", "query failed")
    db = Status("db", McpState.READY)
    db.logs = log.entries  # type: ignore[attr-defined]
    told: set[tuple[str, str, str]] = set()
    assert error_notices(db, told) == ["MCP server db logged error: query failed"]
    assert error_notices(db, told) == []  # the next state change of the same server says nothing again
    (rows,) = recent_logs([db, *SERVERS], "/p")
    assert (
        rows[0] == "db" and rows[1][0].endswith(" info pool: connected") and rows[1][1].endswith(" error query failed")
    )
