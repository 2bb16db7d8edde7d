"""A permission rule: configuration parses it, the tools evaluate it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from agent_tui.vocab.kinds import Effect


class PermissionRule(BaseModel):
    """``{action, pattern, effect}``; for a list of rules the last match wins."""

    # As strict as the settings sections it is read in: a misspelt key is an error.
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    action: str
    pattern: str = "*"
    effect: Effect
