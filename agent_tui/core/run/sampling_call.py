"""An MCP server's approved sampling request, run once on the session's model (no tools, no retries).

The request is the server's own conversation: its system prompt, its messages
as text, its ``maxTokens``, ``temperature`` and ``stopSequences``; the model is
the one the session's next step would use, whatever ``modelPreferences`` say.
The stream is joined into one text; what it spent comes back with it, for the
log's usage ledger.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent_tui.core.host.samplings import Sampled
from agent_tui.core.run.step import LLMFailure, StreamFn, consume
from agent_tui.core.settings.config import Settings
from agent_tui.llm import types as llm
from agent_tui.vocab.sampling import SamplingRequest

STOP_REASONS = {llm.FinishReason.STOP: "endTurn", llm.FinishReason.LENGTH: "maxTokens"}
"""The protocol's names for how the model stopped; any other finish keeps the provider's word."""


def sampling_model_request(request: SamplingRequest, model: str, settings: Settings) -> llm.Request:
    model_settings = settings.model_settings(model)
    turns: list[llm.HistoryMessage] = [
        llm.UserTurn(parts=[llm.RequestText(text=m.text)])
        if m.role == "user"
        else llm.AssistantTurn(model=model, parts=[llm.TextBlock(text=m.text)])
        for m in request.messages
    ]
    return llm.Request(
        model=model,
        system=[request.system_prompt] if request.system_prompt else [],
        messages=turns,
        api_base=model_settings.api_base or settings.api_base,
        api_key=settings.api_key,
        max_tokens=request.max_tokens,
        temperature=request.temperature,
        price=model_settings.price(),
        extra={"stop": list(request.stop_sequences)} if request.stop_sequences else {},
    )


async def run_sampling(
    request: SamplingRequest, model: str, settings: Settings, stream: StreamFn | None = None
) -> Sampled:
    """The model's answer; a provider error raises ``LLMFailure`` (the server is told it was declined)."""
    texts: list[str] = []
    deltas: list[str] = []
    finishes: list[llm.Finish] = []

    async def on_event(item: Any) -> None:
        match item:
            case llm.TextDelta(text=delta):
                deltas.append(delta)
            case llm.TextEnd(text=full):
                texts.append(full)
            case llm.Finish():
                finishes.append(item)

    await consume((stream or _default_stream)(sampling_model_request(request, model, settings)), on_event)
    finish = finishes[-1] if finishes else None
    if finish is None:
        raise LLMFailure.from_exception(RuntimeError("the model's answer ended without a finish"))
    return Sampled(
        text="\n".join(texts) if texts else "".join(deltas),
        model=model,
        stop_reason=STOP_REASONS.get(finish.reason, str(finish.reason)),
        usage=finish.usage,
        cost=finish.cost,
        cost_source=finish.cost_source,
    )


def _default_stream(request: llm.Request) -> AsyncIterator[llm.LLMEvent]:
    from agent_tui import llm as adapter

    return adapter.stream(request)
