"""Progress: what a real SDK server reports during a call reaches the caller as live lines, in order."""

from __future__ import annotations

from pathlib import Path

from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.mcp.progress import progress_line
from agent_tui.vocab.kinds import McpState

from .conftest import protocol_config


async def test_each_progress_notification_of_a_call_is_one_live_line(workdir: Path) -> None:
    connection = McpConnection("proto", protocol_config(), workdir)
    connection.start()
    await connection.settled()
    lines: list[str] = []
    try:
        assert connection.state is McpState.READY, connection.error
        result = await connection.call("count", {"steps": 3}, on_progress=lines.append)
        assert result.content[0].text == "counted to 3"
    finally:
        await connection.stop()
    assert lines == ["progress 1/3: step 1\n", "progress 2/3: step 2\n", "progress 3/3: step 3\n"]


def test_a_line_without_total_or_message_and_a_message_kept_on_one_line() -> None:
    assert progress_line(2, None, None) == "progress 2\n"
    assert progress_line(0.5, 1, "half\nway\tthere") == "progress 0.5/1: half way there\n"
