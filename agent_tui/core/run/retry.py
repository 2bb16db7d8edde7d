"""The narrow retry policy: which failures retry, and after how long."""

from __future__ import annotations

from agent_tui.vocab.kinds import RETRYABLE


def is_retryable(error_type: str) -> bool:
    return error_type in RETRYABLE


def delay_ms(retry_number: int, base_delay_ms: int, retry_after_ms: int | None) -> int:
    """``base * 2**(n-1)`` for the n-th retry, raised to the provider's retry-after."""
    delay: int = base_delay_ms * (2 ** (retry_number - 1))  # n >= 1: int ** int is typed Any
    return max(delay, retry_after_ms or 0)
