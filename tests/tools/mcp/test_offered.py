"""Which listed tools are offered to the model, and the notice for each one that is not."""

from __future__ import annotations

from mcp_types import Tool, ToolExecution

from agent_tui.tools.mcp.listing import offered


def _tool(name: str, task_support: str | None = None) -> Tool:
    execution = ToolExecution(task_support=task_support) if task_support else None
    return Tool(name=name, input_schema={"type": "object"}, execution=execution)


def test_a_tool_that_requires_task_augmentation_is_not_offered_and_says_why() -> None:
    tools, skipped = offered("jobs", [_tool("run", "required"), _tool("peek", "optional"), _tool("list")])
    assert [t.name for t in tools] == ["peek", "list"]
    assert skipped == (
        "tool run is not offered: it requires task-augmented execution, which agent-tui does not support",
    )
