"""Token usage: what ``llm`` reads off a stream's last chunk and ``core`` stores with the step."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Usage(BaseModel):
    # Unknown fields are ignored: a step's usage is read back from logs newer builds wrote.
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
