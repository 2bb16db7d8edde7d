"""The runner's port to the tools: what a step hands a tool call, and what it gets back.

What comes back is the tools' own ``ToolOutcome``: one type from the tool to the step's
settlement (``tool.success`` / ``tool.failed``), not a copy per layer.

Its own module so that the host's adapters (the tool host, the ``!`` shell, the
snapshot hook) implement it without importing the run room that uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from agent_tui.llm import types as llm
from agent_tui.tools.tool import ToolOutcome


@dataclass(frozen=True)
class ToolInvocation:
    session_id: str
    assistant_message_id: str
    call_id: str
    name: str
    input: dict[str, Any]
    supports_vision: bool = False  # the step's model sees images: ``read`` and MCP tools may return them
    by_user: bool = False  # the user's own ``!`` command: nothing is asked, deny rules still apply


class ToolHost(Protocol):
    def definitions(self, agent: str, final_step: bool) -> list[llm.ToolSpec]: ...

    async def execute(self, call: ToolInvocation, on_output: Callable[[str], None]) -> ToolOutcome: ...
