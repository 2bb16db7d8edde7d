"""The ``todo`` tool: the model writes its whole checklist, every time.

Writing the whole list (not patching it) keeps each call self-contained: the
latest successful call *is* the plan, so core can project it from the log and
a rewind to before a call brings the earlier plan back. The tool touches
nothing, so it asks no permission. Its output echoes the plan compactly, and
``data["plan"]`` holds it normalised for the projection and the UIs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.tools.descriptions import tool_description
from agent_tui.tools.errors import ToolError
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.kinds import ErrorType, PlanStatus
from agent_tui.vocab.plan import TODO_TOOL, PlanItem
from agent_tui.vocab.tool_output import ToolOutput

MAX_ITEMS = 50

DESCRIPTION = tool_description("agent_tui.tools", "todo.md")

MARKS = {PlanStatus.PENDING: "[ ]", PlanStatus.IN_PROGRESS: "[>]", PlanStatus.DONE: "[x]"}


class TodoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[PlanItem] = Field(max_length=MAX_ITEMS, description="The whole plan, in order.")


def plan_text(items: list[PlanItem]) -> str:
    """The plan as the model reads it back: a count, then one marked line per item."""
    if not items:
        return "Plan cleared."
    done = sum(item.status is PlanStatus.DONE for item in items)
    lines = [f"{MARKS[item.status]} {item.content}" for item in items]
    return "\n".join([f"Plan updated ({done}/{len(items)} done):", *lines])


async def run_todo(scope: ToolScope, params: TodoInput) -> ToolResult:
    active = [item.content for item in params.items if item.status is PlanStatus.IN_PROGRESS]
    if len(active) > 1:
        names = ", ".join(repr(content) for content in active)
        raise ToolError(
            f"At most one item may be in_progress; {len(active)} are ({names}). "
            "Mark the others pending or done and send the whole list again.",
            ErrorType.TOOL_INPUT,
        )
    plan = [item.model_dump(mode="json") for item in params.items]
    return ToolResult(ToolOutput(text=plan_text(params.items), data={"plan": plan}))


TODO = Tool(name=TODO_TOOL, description=DESCRIPTION, input_model=TodoInput, run=run_todo, action="todo")
