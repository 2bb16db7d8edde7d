"""How every failure is recorded and passed on: ``{type, message}``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ErrorInfo(BaseModel):
    """``{type, message}``; ``type`` is an :class:`~agent_tui.vocab.kinds.ErrorType` value or a new kind."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    type: str
    message: str
    retry_after_ms: int | None = None
    status: int | None = None
    """The provider's HTTP status, when it answered with one (shown with the error: 429, 503, …)."""
