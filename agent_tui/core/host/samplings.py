"""MCP servers' sampling requests, approved by the user mid tool call and run on the session's model.

Opt-in per server (``sampling = true``: only then is the capability declared).
Like an elicitation, a request is recorded (``session.sampling.asked``) and so
is its end (``session.sampling.answered``, with what the model spent); the tool
call waits meanwhile. A front end that can answer (the TUI) ``watch``es for
requests and calls ``answer``; with no one watching (``run``, ``serve``) the
request is declined at once, the reason in the log (``run`` prints it on
stderr). Declined is the default: the server gets an error, never the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agent_tui.core.host.open_asks import CALL_ENDED, HEADLESS, OpenAsks, OpenQuestion
from agent_tui.core.log import events as ev
from agent_tui.core.log.ids import new_id
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.vocab.sampling import DECLINED, SamplingAnswer, SamplingRequest
from agent_tui.vocab.usage import Usage


@dataclass(frozen=True)
class Sampled:
    """What the model wrote for the server, and what that cost."""

    text: str
    model: str
    stop_reason: str
    usage: Usage
    cost: float | None = None
    cost_source: str | None = None


Sample = Callable[[SamplingRequest], Awaitable[SamplingAnswer]]
RunModel = Callable[[SamplingRequest], Awaitable[Sampled]]
"""Runs an approved request on the session's model (the runtime binds the session)."""


class UnknownSampling(LookupError):
    def __init__(self, request_id: str) -> None:
        super().__init__(f"no open MCP sampling request {request_id}")


def _asked(request_id: str, request: SamplingRequest, message_id: str | None, call_id: str | None) -> ev.SamplingAsked:
    return ev.SamplingAsked(
        request_id=request_id,
        assistant_message_id=message_id,
        call_id=call_id,
        server=request.server,
        system_prompt=request.system_prompt,
        messages=[{"role": m.role, "text": m.text} for m in request.messages],
        max_tokens=request.max_tokens,
        temperature=request.temperature,
        stop_sequences=list(request.stop_sequences),
        model_preferences=request.model_preferences,
    )


class Samplings(OpenAsks[SamplingRequest, SamplingAnswer]):
    """The open sampling requests of this process, and who is watching for them."""

    def asker(
        self, publish: SessionPublisher, run_model: RunModel, assistant_message_id: str | None, call_id: str | None
    ) -> Sample:
        """The ``sample`` of one tool call: records each request, asks for approval, runs the approved."""

        async def sample(request: SamplingRequest) -> SamplingAnswer:
            request_id = new_id("sample")
            await publish(_asked(request_id, request, assistant_message_id, call_id))
            try:
                decision = await self._wait(
                    OpenQuestion(publish.session_id, request_id, request), SamplingAnswer(False, reason=HEADLESS)
                )
                if not decision.approved:
                    await publish(ev.SamplingAnswered(request_id=request_id, action="decline", reason=decision.reason))
                    return decision
                sampled = await run_model(request)
            except asyncio.CancelledError:  # the call ended first: the log says so, the cancellation goes on
                await publish(ev.SamplingAnswered(request_id=request_id, action="cancel", reason=CALL_ENDED))
                raise
            except Exception as error:  # noqa: BLE001 - a provider error: the server is told, the call goes on
                why = f"the model failed: {error}"
                await publish(ev.SamplingAnswered(request_id=request_id, action="decline", reason=why))
                return SamplingAnswer(False, reason=why)
            await publish(
                ev.SamplingAnswered(
                    request_id=request_id,
                    action="approve",
                    text=sampled.text,
                    model=sampled.model,
                    stop_reason=sampled.stop_reason,
                    usage=sampled.usage,
                    cost=sampled.cost,
                    cost_source=sampled.cost_source,
                )
            )
            return SamplingAnswer(True, sampled.text, sampled.model, sampled.stop_reason)

        return sample

    def answer(self, request_id: str, approve: bool) -> None:
        """The user's decision: approve runs the request on the session's model, else it is declined."""
        found = self._open.get(request_id)
        if found is None:
            raise UnknownSampling(request_id)
        _, future = found
        if not future.done():
            future.set_result(SamplingAnswer(True) if approve else SamplingAnswer(False, reason=DECLINED))
