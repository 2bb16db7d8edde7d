"""The SDK's own log records go to agent-tui's MCP log file, never to the terminal the TUI draws on."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from agent_tui.tools.mcp.sdk_log import load_sdk


@pytest.fixture
def sdk_logger():
    logger = logging.getLogger("mcp")
    handlers, level, propagate = list(logger.handlers), logger.level, logger.propagate
    yield logger
    for handler in logger.handlers:
        if handler not in handlers:
            handler.close()
    logger.handlers[:], logger.level, logger.propagate = handlers, level, propagate


async def test_sdk_records_and_tracebacks_go_to_the_log_file_only(sdk_logger, tmp_path: Path, capfd) -> None:
    log_file = tmp_path / "data" / "mcp.log"
    await load_sdk(log_file)
    try:
        raise RuntimeError("transport hiccup")
    except RuntimeError:
        logging.getLogger("mcp.client.stdio").exception("Reading from the MCP server's stdout failed mid-session")
    for handler in sdk_logger.handlers:
        handler.flush()
    out, err = capfd.readouterr()
    assert "transport hiccup" not in out + err and "Traceback" not in out + err
    written = log_file.read_text()
    assert "failed mid-session" in written and "RuntimeError: transport hiccup" in written


async def test_the_log_file_is_the_users_only(sdk_logger, tmp_path: Path) -> None:
    import os
    import stat

    log_file = tmp_path / "data" / "mcp.log"
    old = os.umask(0)
    try:
        await load_sdk(log_file)
    finally:
        os.umask(old)
    logging.getLogger("mcp.client").warning("a server said something")
    for handler in sdk_logger.handlers:
        handler.flush()
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600 and "said something" in log_file.read_text()
