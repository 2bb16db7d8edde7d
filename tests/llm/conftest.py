"""Fixtures for the LLM layer: a running fake provider and request builders per wire format."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from agent_tui.llm.types import LLMEvent, Request, RequestText, UserTurn
from agent_tui.testing.fake_provider import FakeProvider


@dataclass(frozen=True)
class Wire:
    name: str  # "openai" | "anthropic"
    model: str

    def base(self, fake: FakeProvider) -> str:
        return fake.openai_base if self.name == "openai" else fake.base_url


WIRES = [Wire("openai", "openai/fake-model"), Wire("anthropic", "anthropic/claude-fake")]


@pytest.fixture(params=WIRES, ids=lambda w: w.name)
def wire(request: pytest.FixtureRequest) -> Wire:
    return request.param


@pytest.fixture
def make_request(fake: FakeProvider, wire: Wire) -> Callable[..., Request]:
    def build(*messages: Any, **overrides: Any) -> Request:
        fields: dict[str, Any] = {
            "model": wire.model,
            "api_base": wire.base(fake),
            "api_key": "test-key",
            "system": ["You are a test agent."],
            "messages": list(messages) or [UserTurn(parts=[RequestText(text="hello")])],
            "max_tokens": 512,
        }
        fields.update(overrides)
        return Request(**fields)

    return build


async def collect(request: Request) -> list[LLMEvent]:
    from agent_tui import llm

    return [event async for event in llm.stream(request)]
