"""The live plan: the checklist the model keeps with the ``todo`` tool.

The tool writes it, core projects the latest one from the log, and the TUI,
``run`` and the HTTP API show it; all of them speak of the same items, so the
shape lives here.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.vocab.kinds import PlanStatus

TODO_TOOL = "todo"
"""The tool's name: the projection recognises a plan update by it."""


class PlanItem(BaseModel):
    """One step of the plan: what to do and how far it is."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    content: str = Field(min_length=1, max_length=500, description="The step, in a few words.")
    status: PlanStatus = Field(description="pending, in_progress or done.")


def plan_open(items: list[PlanItem]) -> bool:
    """Whether work is open: some item is not done (an empty plan is closed)."""
    return any(item.status is not PlanStatus.DONE for item in items)
