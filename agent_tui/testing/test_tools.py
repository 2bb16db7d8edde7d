"""Small tools for runner tests, registered with ``AGENT_TUI_TEST_TOOLS``.

``AGENT_TUI_TEST_TOOLS=agent_tui.testing.test_tools:register`` adds them to
every registry, so subprocess tests (crash recovery, ownership) can use them.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

from pydantic import BaseModel, Field

from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.tool_output import ToolOutput

MARK_ENV = "AGENT_TUI_TEST_MARKS"


def _mark(line: str) -> None:
    """Append a line to the marks file (tests read it to see what ran, and when)."""
    target = os.environ.get(MARK_ENV)
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


class SleepInput(BaseModel):
    ms: int = Field(ge=0, description="How long to sleep, in milliseconds.")
    label: str = ""


async def _sleep(scope: ToolScope, params: SleepInput) -> ToolResult:
    started = time.monotonic()
    _mark(f"start {params.label} {started:.6f}")
    await asyncio.sleep(params.ms / 1000)
    ended = time.monotonic()
    _mark(f"end {params.label} {ended:.6f}")
    return ToolResult(ToolOutput(text=f"slept {params.ms} ms", data={"started": started, "ended": ended}))


class BlockInput(BaseModel):
    label: str = "block"


async def _block(scope: ToolScope, params: BlockInput) -> ToolResult:
    """Never returns on its own: for interrupt and crash tests."""
    _mark(f"block {params.label} pid={os.getpid()}")
    scope.on_output(f"blocking {params.label}\n")
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def _wedge(scope: ToolScope, params: BlockInput) -> ToolResult:
    """Blocks a worker thread for good: cancelling the call leaves it blocked, so the process's
    clean-up cannot finish (``asyncio.run`` waits for its executor); for exit-grace tests."""
    _mark(f"wedge {params.label} pid={os.getpid()}")
    await asyncio.to_thread(threading.Event().wait)
    raise AssertionError("unreachable")


class BoomInput(BaseModel):
    message: str = "boom"


async def _boom(scope: ToolScope, params: BoomInput) -> ToolResult:
    raise RuntimeError(params.message)


class EchoInput(BaseModel):
    text: str


async def _echo(scope: ToolScope, params: EchoInput) -> ToolResult:
    return ToolResult(ToolOutput(text=params.text))


TEST_TOOLS = (
    Tool("sleep", "Sleep for a while.", SleepInput, _sleep, action="test"),
    Tool("block", "Block until cancelled.", BlockInput, _block, action="test"),
    Tool("wedge", "Block a thread for good.", BlockInput, _wedge, action="test"),
    Tool("boom", "Raise an exception.", BoomInput, _boom, action="test"),
    Tool("echo", "Echo the text back.", EchoInput, _echo, action="test"),
)


def register(registry: ToolRegistry) -> None:
    for tool in TEST_TOOLS:
        registry.register(tool)


def marks_file(directory: Path) -> Path:
    return directory / "marks.txt"
