"""``llm.pricing``: which figure a step's cost is, and what a gateway's report looks like to LiteLLM."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agent_tui.llm.pricing import PROXY_COST_HEADER, header_cost, reported, step_cost
from agent_tui.vocab.usage import Price, Usage

USAGE = Usage(input_tokens=1_000, output_tokens=100)


def test_the_litellm_proxy_cost_header_is_a_provider_figure() -> None:
    response = SimpleNamespace(_hidden_params={"additional_headers": {PROXY_COST_HEADER: "0.042"}})
    assert header_cost(response) == pytest.approx(0.042)
    assert header_cost(SimpleNamespace()) is None
    assert step_cost("openai/fake-model", USAGE, header_cost(response), None) == (pytest.approx(0.042), "provider")


@pytest.mark.parametrize("value", [None, "n/a", float("nan"), -1.0, True])
def test_a_report_that_is_not_a_cost_is_no_report(value: object) -> None:
    assert reported(value) is None


def test_an_unknown_model_without_a_price_is_unknown_and_no_tokens_cost_nothing_known() -> None:
    assert step_cost("openai/fake-model", USAGE, None, None) == (None, None)
    assert step_cost("openai/fake-model", Usage(), None, Price(input_per_million=1, output_per_million=1)) == (
        None,
        None,
    )


def test_the_price_map_prices_a_model_it_knows() -> None:
    cost, source = step_cost("gpt-4o", USAGE, None, None)
    assert source == "price_map" and cost is not None and cost > 0
