"""The ``task`` tool: hand work to a subagent, which runs as a child session of its own.

Only the model-facing part lives here (the input, the description, the tool); what
runs the child (a session, its drain, its answer) is core's, handed in as ``run``, so
this layer never learns what a session is. The tool asks no permission itself: the
child runs under its own agent's rules.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.tools.descriptions import tool_description
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult

TASK_TOOL = "task"
TASK_ACTION = "task"
"""The permission action: a ``deny`` rule for an agent name keeps the model from starting that subagent."""

DESCRIPTION = tool_description("agent_tui.tools", "task.md")


class TaskInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str = Field(min_length=1, description="The subagent to run, by name.")
    description: str = Field(min_length=1, max_length=80, description="What it does, in 3-5 words.")
    prompt: str = Field(min_length=1, description="The whole task, for a subagent that sees nothing else.")


RunTask = Callable[[ToolScope, TaskInput], Awaitable[ToolResult]]


def task_tool(run: RunTask, agents: Sequence[tuple[str, str]]) -> Tool:
    """The ``task`` tool running children through ``run``; ``agents`` (name, description) are listed for the model."""
    listed = "\n".join(f"- {name}" + (f": {about}" if about else "") for name, about in agents)
    return Tool(
        name=TASK_TOOL,
        description=f"{DESCRIPTION}\n\nSubagents:\n{listed or '(none)'}",
        input_model=TaskInput,
        run=run,
        action=TASK_ACTION,
    )
