"""``run``'s MCP lines on stderr: a failure once, and each tool a server lists but agent-tui does not offer, once."""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.commands.run_cmd import _mcp_notice


@dataclass
class Server:
    name: str = "jobs"
    fresh_failure: bool = False
    error: str | None = None
    skipped: tuple[str, ...] = ("tool run is not offered: it requires task-augmented execution",)


def test_a_tool_that_is_not_offered_is_one_line_however_often_the_server_changes(capsys) -> None:
    told: set[str] = set()
    _mcp_notice(Server(), told)
    _mcp_notice(Server(), told)
    assert capsys.readouterr().err.splitlines() == [
        "agent-tui: MCP server jobs: tool run is not offered: it requires task-augmented execution"
    ]


def test_a_logged_error_is_one_line_and_a_lesser_message_none(capsys) -> None:
    from agent_tui.tools.mcp.server_log import ServerLog

    log = ServerLog("jobs")
    log.record("warning", "slow")
    log.record("critical", "lost the queue")
    server = Server(skipped=())
    server.logs = log.entries  # type: ignore[attr-defined]
    told: set[str] = set()
    _mcp_notice(server, told)
    _mcp_notice(server, told)
    assert capsys.readouterr().err.splitlines() == ["agent-tui: MCP server jobs logged critical: lost the queue"]
