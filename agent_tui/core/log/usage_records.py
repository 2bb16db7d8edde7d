"""Usage read models: token and cost sums of the ``step_usage`` ledger, per group.

A cost is a sum of the steps whose cost is known. Steps that spent tokens at an unknown price are
counted apart (``unpriced_steps``) so that every front end can say "unknown" rather than print a
sum that silently treats them as free.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

UsageGrouping = Literal["day", "week", "month", "model", "agent", "project", "session"]
USAGE_GROUPINGS: tuple[UsageGrouping, ...] = ("day", "week", "month", "model", "agent", "project", "session")


class UsageRow(BaseModel):
    """One group's sums; ``key`` is the day, week (its Monday), month, model, agent, project or session id."""

    model_config = ConfigDict(frozen=True)

    key: str
    label: str | None = None
    """A session's title (``--by session``); else None."""
    sessions: int = 0
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None
    """The sum of the known costs; None when no step of the group has one."""
    unpriced_steps: int = 0
    """Steps that spent tokens at an unknown price: their cost is not in ``cost``."""

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def cost_text(self) -> str:
        """``$0.0123``; ``unknown`` when no cost is known; ``$0.0123 + unknown`` when only some are."""
        if self.unpriced_steps and self.cost is None:
            return "unknown"
        known = f"${self.cost or 0.0:,.4f}"
        return f"{known} + unknown" if self.unpriced_steps else known


class SessionUsage(BaseModel):
    """A session's usage with its subagents' sessions (``/usage``): in all, per model, per agent."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    sessions: int = 1
    """This session and every session its subagents (and theirs) started."""
    total: UsageRow
    by_model: list[UsageRow] = Field(default_factory=list)
    by_agent: list[UsageRow] = Field(default_factory=list)
