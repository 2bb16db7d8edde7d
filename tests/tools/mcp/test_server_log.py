"""Server log messages: a real SDK server's ``notifications/message`` land in ``mcp.log`` and the server's
last ``KEPT``; an error-level one tells the listeners (one notice), the others do not."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from agent_tui.tools.mcp.hub import McpHub
from agent_tui.tools.mcp.server_log import KEPT, ServerLog
from agent_tui.vocab.kinds import McpState

from .conftest import protocol_config


@pytest.fixture
def sdk_logger():
    logger = logging.getLogger("mcp")
    handlers, level, propagate = list(logger.handlers), logger.level, logger.propagate
    yield logger
    for handler in logger.handlers:
        if handler not in handlers:
            handler.close()
    logger.handlers[:], logger.level, logger.propagate = handlers, level, propagate


async def test_log_messages_go_to_the_log_file_and_the_servers_list_and_an_error_tells_the_listeners(
    sdk_logger, workdir: Path, tmp_path: Path
) -> None:
    log_file = tmp_path / "data" / "mcp.log"
    hub = McpHub(log_file=log_file)
    told: list[tuple[str, ...]] = []
    hub.watch(lambda c: told.append(tuple(e.text for e in c.logs if e.is_error)))
    (connection,) = await hub.sync(workdir, {"proto": protocol_config()})
    await connection.settled()
    try:
        assert connection.state is McpState.READY, connection.error
        told.clear()
        await connection.call("chatter", {"levels": ["info", "warning"]})
        assert told == []  # below error: nothing for the transcript
        await connection.call("chatter", {"levels": ["error"]})
        (status,) = hub.status(workdir)
        heard = list(told)  # before the stop, itself a change
    finally:
        await hub.close()
    assert [(e.level, e.logger, e.text) for e in status.logs] == [
        ("info", "proto", "info message from chatter"),
        ("warning", "proto", "warning message from chatter"),
        ("error", "proto", "error message from chatter"),
    ]
    assert heard == [("error message from chatter",)]
    for handler in sdk_logger.handlers:
        handler.flush()
    written = log_file.read_text()
    assert "INFO mcp.servers.proto: proto/proto: info message from chatter" in written
    assert "ERROR mcp.servers.proto: proto/proto: error message from chatter" in written


def test_only_the_last_messages_are_kept_and_long_or_structured_data_is_one_bounded_line() -> None:
    log = ServerLog("proto")
    for n in range(KEPT + 5):
        log.record("info", f"message {n}")
    assert len(log.entries) == KEPT and log.entries[0].text == "message 5"
    assert log.record("debug", {"rows": [1, 2]}).text == '{"rows": [1, 2]}'
    assert log.record("critical", "x" * 5000).is_error and len(log.entries[-1].text) <= 2001
