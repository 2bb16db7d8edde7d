"""A tool's successful result, as tools return it and the log stores it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ToolOutput(BaseModel):
    """What the model sees (``text``) plus structured data for the UI."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    text: str
    data: dict[str, Any] = Field(default_factory=dict)
    images: list[dict[str, Any]] = Field(default_factory=list)
