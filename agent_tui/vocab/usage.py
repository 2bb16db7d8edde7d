"""Token usage: what ``llm`` reads off a stream's last chunk and ``core`` stores with the step."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class Usage(BaseModel):
    # Unknown fields are ignored: a step's usage is read back from logs newer builds wrote.
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


CostSource = Literal["provider", "config", "price_map"]
"""Where a step's cost came from: the provider's (or gateway's) own figure in the response, the
model's price in the user's config, or LiteLLM's price map. A step whose cost is unknown has none."""


class Price(BaseModel):
    """A model's price in dollars per million tokens, as ``[models."name"]`` configures it.

    Cache reads and writes default to the input price: a config that names only input and output
    prices never charges cached tokens at zero, which would be a guess.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_million: float
    output_per_million: float
    cache_read_per_million: float | None = None
    cache_write_per_million: float | None = None

    def cost(self, usage: Usage) -> float:
        """``usage.input_tokens`` is the whole prompt, cache reads and writes included."""
        read = usage.cache_read_tokens
        write = usage.cache_write_tokens
        plain = max(0, usage.input_tokens - read - write)
        read_price = self.input_per_million if self.cache_read_per_million is None else self.cache_read_per_million
        write_price = self.input_per_million if self.cache_write_per_million is None else self.cache_write_per_million
        dollars = (
            plain * self.input_per_million
            + read * read_price
            + write * write_price
            + usage.output_tokens * self.output_per_million
        )
        return dollars / 1_000_000
