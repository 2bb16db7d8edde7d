"""An MCP server's request to use the session's model (sampling): what it asks for and what it gets.

Shared by every layer: the MCP connection (tools) turns the SDK's
``sampling/createMessage`` into a ``SamplingRequest``, core records it
(``session.sampling.asked``), waits for the user's approval and runs it on the
session's model, the TUI's panel shows it. Only text reaches the model: an
image or audio part is described in a line (``[image: image/png]``), since a
server's media is no reason to widen what the approval panel has to show.
No pydantic, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

DECLINED = "the user declined"
"""What the server is told when the request was not approved (the reason follows in the log)."""


@dataclass(frozen=True)
class SamplingMessage:
    """One message of the conversation the server wants continued; media parts are described in ``text``."""

    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True)
class SamplingRequest:
    """What a server asks the model: ``modelPreferences`` are recorded, never followed (the session's model answers)."""

    server: str
    messages: tuple[SamplingMessage, ...]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    model_preferences: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SamplingAnswer:
    """What the server gets back: the model's text when approved, else why not (``reason``)."""

    approved: bool
    text: str = ""
    model: str = ""
    stop_reason: str | None = None
    """``endTurn``, ``maxTokens`` or ``stopSequence``, as the protocol spells them."""
    reason: str | None = None
    """Why it was declined (the user, a headless run, the model failed): the log's and the server's line."""


def described(kind: str, mime: str | None) -> str:
    """A media part the model is not shown, as one line: ``[image: image/png]``."""
    return f"[{kind}: {mime}]" if mime else f"[{kind}]"
