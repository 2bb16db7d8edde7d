"""A step's cost and where it came from: the provider's figure, the configured price, or LiteLLM's map.

The provider's (or gateway's) own figure wins: OpenRouter and LiteLLM proxies bill by it, and it
knows discounts and cache pricing the map may not. A configured price overrides the map, which is
often missing or stale for new and self-hosted models. With neither a figure nor a price the cost
is unknown (None), never a guess: summing unknowns as $0 would make a report look cheaper than it is.
"""

from __future__ import annotations

import math
from typing import Any

from agent_tui.llm import lazy
from agent_tui.vocab.usage import CostSource, Price, Usage

PROXY_COST_HEADER = "llm_provider-x-litellm-response-cost"
"""The LiteLLM proxy's ``x-litellm-response-cost`` response header, as LiteLLM passes it on."""


def reported(value: Any) -> float | None:
    """A provider-reported cost as a number, or None when it is absent or not a finite figure."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value) and value >= 0:
        return float(value)
    return None


def header_cost(response: Any) -> float | None:
    """The proxy's cost header on a streamed response, if LiteLLM kept one."""
    hidden = getattr(response, "_hidden_params", None)
    headers = hidden.get("additional_headers") if isinstance(hidden, dict) else None
    return reported(headers.get(PROXY_COST_HEADER)) if isinstance(headers, dict) else None


def price_map_cost(model: str, usage: Usage) -> float | None:
    """LiteLLM's price for ``usage``; None for a model the map does not know."""
    try:
        prompt, completion = lazy.load().cost_per_token(
            model=model,
            prompt_tokens=usage.input_tokens,
            completion_tokens=usage.output_tokens,
            cache_read_input_tokens=usage.cache_read_tokens,
            cache_creation_input_tokens=usage.cache_write_tokens,
        )
    except Exception:  # noqa: BLE001 - models without a price have no cost
        return None
    return float(prompt + completion)


def step_cost(
    model: str, usage: Usage, provider_cost: float | None, price: Price | None
) -> tuple[float | None, CostSource | None]:
    """``(cost, source)``: the provider's figure, else the configured price, else the map, else unknown."""
    if provider_cost is not None:
        return provider_cost, "provider"
    if not usage.input_tokens and not usage.output_tokens:
        return None, None
    if price is not None:
        return price.cost(usage), "config"
    cost = price_map_cost(model, usage)
    return (cost, "price_map") if cost is not None else (None, None)
