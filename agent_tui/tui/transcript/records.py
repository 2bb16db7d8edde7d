"""What the transcript keeps beside its blocks: pending inputs, permission asks, the status bar's facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui.vocab.kinds import Delivery


@dataclass
class PendingInput:
    input_id: str
    text: str
    delivery: Delivery
    seq: int
    attachments: str = ""
    prompt: list = field(default_factory=list)  # the parts as admitted (re-sent as they are by "steer")
    rank: int | None = None  # its place after a reorder (as the store's ``queue_rank``)

    @property
    def place(self) -> int:
        return self.rank if self.rank is not None else self.seq


@dataclass
class PermissionAsk:
    request_id: str
    action: str
    resources: list[str]
    call_id: str | None
    detail: dict
    seq: int
    assistant_message_id: str | None = None
    save: list[str] = field(default_factory=list)
    """The patterns an "always" answer saves (the panel names them)."""


@dataclass
class SessionFacts:
    """What the status bar needs, derived from the log."""

    title: str | None = None
    location: str | None = None
    agent: str | None = None
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    last_input_tokens: int = 0
    cost: float = 0.0
    unpriced_steps: int = 0  # steps that spent tokens at an unknown price: ``cost`` is not their whole cost
    retry_at_ms: int | None = None
    compacting: bool = False
    step_open: bool = False
    queue_paused: bool = False
    executions_ended: int = 0  # busy periods ended (succeeded, failed, interrupted): a turn's end
