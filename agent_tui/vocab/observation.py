"""What a run tells an observer (telemetry) as it goes: turns, model calls, tool calls, instruction looks.

The core calls a :class:`RunObserver` at the points where these happen (``core.run.runner``,
``core.run.step``, ``core.request.instructions``); ``NoObserver`` is what it calls when telemetry is
off. The protocol lives in ``vocab`` so the core and the OpenTelemetry implementation
(``agent_tui.telemetry``, which the core loads only when configured) both name it without importing
each other. Every method is synchronous and cheap: an implementation records in memory and exports
from its own thread, so the event loop is never held up, and it never raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.usage import CostSource, Usage


@dataclass(frozen=True)
class ModelCall:
    """One physical attempt of a step: the request about to be sent."""

    session_id: str
    step_id: str
    """The step's assistant message id (retries of a step share it)."""
    agent: str
    model: str
    attempt: int
    input_messages: list[dict[str, Any]] | None = None
    """The request's system text and messages, only when the observer asked for prompts."""


@dataclass(frozen=True)
class ModelCallEnd:
    """How an attempt ended: finished (``error`` None), failed, or failed and retried."""

    finish_reason: str | None = None
    usage: Usage | None = None
    cost: float | None = None
    cost_source: CostSource | None = None
    response_model: str | None = None
    error: ErrorInfo | None = None
    retried: bool = False
    """A retry follows this failed attempt."""
    answer: str | None = None
    """The attempt's text, only when the observer asked for prompts."""


@dataclass(frozen=True)
class ToolRun:
    session_id: str
    step_id: str
    call_id: str
    name: str
    arguments: dict[str, Any] | None = None
    """The call's input, only when the observer asked for prompts."""


@dataclass(frozen=True)
class InstructionLook:
    """One observation of the instruction sources before a step (reference 001's operational metrics)."""

    session_id: str
    seconds: float
    """How long observing every source took."""
    sources: int
    unavailable: list[str] = field(default_factory=list)
    """The keys of the sources that could not be observed this time."""
    baseline_chars: int | None = None
    """The size of the baseline written by this look, if it wrote one."""
    update_chars: int | None = None
    """The size of the chronological update written by this look, if it wrote one."""
    waited: dict[str, float] = field(default_factory=dict)
    """Contention: seconds this look queued for what every session of the process shares, by what
    (``store.reader``, ``store.writer``, ``threads``; see ``core.log.waits``)."""
    updates_since_baseline: int | None = None
    """Growth: how many chronological updates the model has been given since the current baseline,
    this look's included; None when it wrote a baseline or could not look (a baseline resets it)."""
    update_chars_since_baseline: int | None = None
    """Growth: their total size in characters."""


class RunObserver(Protocol):
    @property
    def wants_prompts(self) -> bool:
        """Whether prompt, answer and tool-argument text should be passed (``log_prompts``)."""
        ...

    def turn_started(self, session_id: str, agent: str, spawned_by: tuple[str, str] | None = None) -> None:
        """``spawned_by``: a subagent's parent session and ``task`` call id (its turn runs inside that call)."""
        ...

    def turn_ended(self, session_id: str, error: ErrorInfo | None) -> None: ...

    def model_call_started(self, call: ModelCall) -> None: ...

    def model_call_ended(self, session_id: str, step_id: str, end: ModelCallEnd) -> None: ...

    def tool_started(self, run: ToolRun) -> None: ...

    def tool_ended(self, session_id: str, call_id: str, error: ErrorInfo | None, output: str | None) -> None: ...

    def instructions_looked(self, look: InstructionLook) -> None: ...

    def close(self) -> None:
        """Export what is pending and stop (blocking, bounded: call it off the event loop)."""
        ...


class NoObserver:
    """Telemetry off: every call does nothing."""

    wants_prompts = False

    def turn_started(self, session_id: str, agent: str, spawned_by: tuple[str, str] | None = None) -> None:
        return None

    def turn_ended(self, session_id: str, error: ErrorInfo | None) -> None:
        return None

    def model_call_started(self, call: ModelCall) -> None:
        return None

    def model_call_ended(self, session_id: str, step_id: str, end: ModelCallEnd) -> None:
        return None

    def tool_started(self, run: ToolRun) -> None:
        return None

    def tool_ended(self, session_id: str, call_id: str, error: ErrorInfo | None, output: str | None) -> None:
        return None

    def instructions_looked(self, look: InstructionLook) -> None:
        return None

    def close(self) -> None:
        return None
