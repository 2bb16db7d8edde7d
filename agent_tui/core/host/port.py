"""The runner's port to the tools: what a step hands a tool call, and what it gets back.

Its own module so that the host's adapters (the tool host, the ``!`` shell, the
snapshot hook) implement it without importing the run room that uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tui.llm import types as llm
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.tool_output import ToolOutput


@dataclass(frozen=True)
class ToolInvocation:
    session_id: str
    assistant_message_id: str
    call_id: str
    name: str
    input: dict[str, Any]
    supports_vision: bool = False  # the step's model sees images: ``read`` and MCP tools may return them


@dataclass(frozen=True)
class ToolSettlement:
    output: ToolOutput | None = None
    error: ErrorInfo | None = None
    stops_run: bool = False  # a permission reject without a message
    result_meta: dict[str, Any] = field(default_factory=dict)


class ToolHost(Protocol):
    def definitions(self, agent: str, final_step: bool) -> list[llm.ToolSpec]: ...

    async def execute(self, call: ToolInvocation, on_output: Callable[[str], None]) -> ToolSettlement: ...
