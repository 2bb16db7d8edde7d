"""``stream(request)``: one model call as an async iterator of :data:`LLMEvent` s.

Retries are the runner's (``num_retries=0``, ``max_retries=0``). Any failure,
at the call or mid-stream, is raised as :class:`LLMError` with
``output_started`` telling whether content events were already yielded.
Closing or cancelling the iterator closes the HTTP stream. A stream that ends
cleanly without a finish reason finishes with ``other`` (``tool_calls`` if
complete calls arrived).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agent_tui.llm import lazy
from agent_tui.llm.credentials import provider_name
from agent_tui.llm.errors import classify
from agent_tui.llm.lowering import completion_kwargs
from agent_tui.llm.normalize import Normalizer
from agent_tui.llm.pricing import header_cost, step_cost
from agent_tui.llm.types import LLMEvent, Request
from agent_tui.vocab.usage import Usage


async def _close(response: Any) -> None:
    close = getattr(response, "aclose", None)
    if close is None:
        return
    try:
        await asyncio.shield(close())
    except Exception:  # noqa: BLE001 - closing a broken stream must not mask the real error
        pass


async def stream(request: Request) -> AsyncIterator[LLMEvent]:
    """Stream one completion; raises :class:`LLMError`. Use ``contextlib.aclosing`` to close early."""
    await lazy.warm(tokenizer=False)  # no-op once warm; else the imports happen off the event loop
    litellm = lazy.load()
    kwargs = completion_kwargs(request, provider_name(request.model))
    normalizer = Normalizer()
    try:
        response = await litellm.acompletion(
            **kwargs,
            stream=True,
            stream_options={"include_usage": True},
            num_retries=0,
            max_retries=0,
            drop_params=True,
        )
    except Exception as error:
        raise classify(error) from error
    try:
        try:
            async for chunk in response:
                for event in normalizer.feed(chunk):
                    yield event
        except Exception as error:
            raise classify(error, output_started=normalizer.emitted) from error
        # A clean end without a finish reason (some OpenAI-compatible servers) is
        # reported as ``other``; a broken connection has already raised above.
        usage = normalizer.usage or Usage()
        provider_cost = normalizer.reported_cost
        if provider_cost is None:
            provider_cost = header_cost(response)
        cost, source = step_cost(request.model, usage, provider_cost, request.price)
        for event in normalizer.finish(cost, source):
            yield event
    finally:
        await _close(response)
