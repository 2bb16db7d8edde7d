"""Hand-built durable logs: a tiny writer that numbers events like the store does."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui.core.api import events as ev
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import Delivery
from agent_tui.vocab.tool_output import ToolOutput
from agent_tui.vocab.usage import Usage


@dataclass
class LogBuilder:
    session_id: str = "ses_test"
    events: list[ev.StoredEvent] = field(default_factory=list)
    now_ms: int = 1_700_000_000_000
    _turn: int = 0

    def add(self, event: ev.DurableEvent, after_ms: int = 10) -> ev.StoredEvent:
        self.now_ms += after_ms
        stored = ev.StoredEvent(
            session_id=self.session_id,
            seq=len(self.events) + 1,
            type=event.TYPE,
            created=self.now_ms,
            event=event,
        )
        self.events.append(stored)
        return stored

    def created(self, location: str = "/tmp/project", model: str = "openai/fake") -> LogBuilder:
        self.add(ev.SessionCreated(location=location, project_root=location, model=model))
        return self

    def prompt(self, text: str, input_id: str | None = None, delivery: str = "steer", promote: bool = True) -> str:
        self._turn += 1
        input_id = input_id or f"msg_user{self._turn}"
        self.add(ev.PromptAdmitted(input_id=input_id, prompt=ev.text_prompt(text), delivery=Delivery(delivery)))
        if promote:
            self.add(ev.PromptPromoted(input_id=input_id))
        return input_id

    def step(self, amid: str, model: str = "openai/fake", attempt: int = 1) -> str:
        self.add(ev.StepStarted(assistant_message_id=amid, agent="build", model=model, attempt=attempt))
        return amid

    def text(self, amid: str, text: str, ordinal: int = 0, reasoning: bool = False) -> None:
        if reasoning:
            self.add(ev.ReasoningStarted(assistant_message_id=amid, ordinal=ordinal))
            self.add(ev.ReasoningEnded(assistant_message_id=amid, ordinal=ordinal, text=text))
        else:
            self.add(ev.TextStarted(assistant_message_id=amid, ordinal=ordinal))
            self.add(ev.TextEnded(assistant_message_id=amid, ordinal=ordinal, text=text))

    def tool(
        self,
        amid: str,
        call_id: str,
        name: str,
        args: dict,
        output: str | None = "ok",
        error: str | None = None,
        error_type: str = "tool.execution",
        ms: int = 1200,
    ) -> None:
        self.add(ev.ToolCalled(assistant_message_id=amid, call_id=call_id, name=name, input=args))
        if error is not None:
            self.add(
                ev.ToolFailed(
                    assistant_message_id=amid, call_id=call_id, error=ErrorInfo(type=error_type, message=error)
                ),
                after_ms=ms,
            )
        elif output is not None:
            self.add(
                ev.ToolSucceeded(assistant_message_id=amid, call_id=call_id, output=ToolOutput(text=output)),
                after_ms=ms,
            )

    def end_step(self, amid: str, input_tokens: int = 100, output_tokens: int = 20, cost: float = 0.001) -> None:
        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
        self.add(ev.StepEnded(assistant_message_id=amid, finish="stop", usage=usage, cost=cost))

    def turn(self, prompt: str, answer: str) -> str:
        """A whole exchange: prompt, one step with one text fragment, execution settled."""
        self.add(ev.ExecutionStarted())
        self.prompt(prompt)
        amid = self.step(f"msg_asst{self._turn}")
        self.text(amid, answer)
        self.end_step(amid)
        self.add(ev.ExecutionSucceeded())
        return amid
