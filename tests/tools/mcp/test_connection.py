"""One MCP server connection against the fake server as a real process (stdio) and over streamable HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.connection import McpConnection, backoff_ms
from agent_tui.vocab.clock import ManualClock
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

from .conftest import alive


async def _ready(config: McpServerConfig, location: Path, clock: ManualClock | None = None) -> McpConnection:
    connection = McpConnection("notes", config, location, clock)
    connection.start()
    await connection.settled()
    return connection


async def test_a_stdio_server_starts_lists_its_tools_answers_a_call_and_stops(notes, workdir, tmp_path) -> None:
    connection = await _ready(notes, workdir)
    try:
        assert connection.state is McpState.READY, connection.error
        assert {t.name for t in connection.tools} == {"echo", "pid", "fail", "die", "wait"}
        echo = next(t for t in connection.tools if t.name == "echo")
        assert echo.schema["properties"]["text"]["type"] == "string" and echo.description == "Repeat the text."
        assert connection.instructions == "Use notes echo to repeat text."
        result = await connection.call("echo", {"text": "hi"})
        assert result.content[0].text == "echo: hi" and not result.is_error
    finally:
        await connection.stop()
    assert connection.state is McpState.STOPPED


async def test_stop_ends_the_server_process(notes, workdir, tmp_path) -> None:
    import asyncio

    connection = await _ready(notes, workdir)
    call = asyncio.ensure_future(connection.call("wait", {}))
    marks = tmp_path / "wait.started"
    while not marks.exists():
        await asyncio.sleep(0.02)
    pid = int(marks.read_text())
    call.cancel()
    await connection.stop()
    assert not alive(pid)


async def test_a_server_that_dies_mid_call_fails_the_call_with_its_stderr_and_restarts(notes, workdir) -> None:
    connection = await _ready(notes, workdir, ManualClock())
    failures: list[tuple[bool, str]] = []
    connection._on_change = lambda c: failures.append((c.fresh_failure, c.error or "")) if c.error else None
    try:
        with pytest.raises(ToolError) as failure:
            await connection.call("die", {})
        assert "exited during die" in failure.value.message and "disk on fire" in failure.value.message
        assert len(failures) == 1 and failures[0][0] and "disk on fire" in failures[0][1]
        result = await connection.call("echo", {"text": "back"})  # after a crash the first restart is immediate
        assert result.content[0].text == "echo: back" and connection.state is McpState.READY
    finally:
        await connection.stop()


async def test_a_server_that_cannot_start_fails_with_its_stderr_and_waits_out_its_backoff(workdir, tmp_path) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import sys\nprint('missing API token', file=sys.stderr)\nsys.exit(2)\n")
    clock = ManualClock()
    config = McpServerConfig(command=[__import__("sys").executable, str(script)])
    connection = await _ready(config, workdir, clock)
    assert connection.state is McpState.FAILED and connection.fresh_failure
    assert "the process exited before the handshake" in (connection.error or "")
    assert "missing API token" in (connection.error or "")
    connection.start()  # within the first second: nothing happens
    assert connection.state is McpState.FAILED
    clock.advance(backoff_ms(1) / 1000)
    connection.start()
    assert connection.state is McpState.STARTING
    await connection.settled()
    assert connection.state is McpState.FAILED and connection.failures == 2 and not connection.fresh_failure
    connection.start()  # now it waits 2 s
    assert connection.state is McpState.FAILED
    clock.advance(backoff_ms(2) / 1000)
    connection.start()
    assert connection.state is McpState.STARTING
    await connection.settled()
    with pytest.raises(ToolError, match="not running"):
        await connection.call("echo", {"text": "x"})


def test_backoff_doubles_up_to_a_minute_and_a_crash_restarts_at_once() -> None:
    assert [backoff_ms(n) for n in (1, 2, 3, 4)] == [1_000, 2_000, 4_000, 8_000]
    assert [backoff_ms(n, crashed=True) for n in (1, 2, 3)] == [0, 1_000, 2_000]
    assert backoff_ms(30) == 60_000


async def test_a_streamable_http_server_is_used_the_same_way(http_notes, workdir) -> None:
    connection = await _ready(http_notes, workdir)
    try:
        assert connection.state is McpState.READY, connection.error
        assert connection.instructions == "Use notes echo to repeat text."
        result = await connection.call("echo", {"text": "over http"})
        assert result.content[0].text == "echo: over http"
        failed = await connection.call("fail", {"message": "quota exceeded"})
        assert failed.is_error and "quota exceeded" in failed.content[0].text
    finally:
        await connection.stop()


async def test_an_sse_server_is_used_the_same_way(sse_notes, workdir) -> None:
    connection = await _ready(sse_notes, workdir)
    try:
        assert connection.state is McpState.READY, connection.error
        assert connection.config.transport == "sse"
        result = await connection.call("echo", {"text": "over sse"})
        assert result.content[0].text == "echo: over sse"
    finally:
        await connection.stop()


async def test_a_missing_command_and_an_unreachable_url_say_why(workdir) -> None:
    missing = await _ready(McpServerConfig(command=["no-such-mcp-server-binary"]), workdir)
    assert missing.state is McpState.FAILED and "No such file" in (missing.error or ""), missing.error
    unreachable = await _ready(McpServerConfig(url="http://127.0.0.1:9/mcp", startup_timeout_s=20), workdir)
    assert unreachable.state is McpState.FAILED and "failed to start" in (unreachable.error or "")


async def test_a_dead_servers_last_words_survive_its_stderr_file_being_cleaned_up_first(notes, workdir) -> None:
    """The attempt's clean-up can remove the stderr file before the call that saw the death
    reads it (it lost "disk on fire" once on a loaded machine): the tail is kept at clean-up."""
    connection = await _ready(notes, workdir, ManualClock())
    try:
        stderr = connection.stderr.path
        assert stderr is not None
        stderr.write_text("notes server: disk on fire\n")
        await connection.stderr.keep_tail(stderr)  # the clean-up ran first ...
        stderr.unlink()  # ... and removed the file
        assert await connection._failed("exited during die", connection._stop, crashed=True)
        assert "disk on fire" in (connection.last_error or "")
    finally:
        await connection.stop()
