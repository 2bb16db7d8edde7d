"""The model name decides the family, and so the base prompt: LiteLLM names as users write them."""

from __future__ import annotations

import pytest

from agent_tui.core.request.families import Family, family_of

NAMES = {
    "anthropic/claude-sonnet-4-5": Family.ANTHROPIC,
    "anthropic/claude-opus-4-1-20250805": Family.ANTHROPIC,
    "anthropic/some-future-name": Family.ANTHROPIC,  # the provider serves only Claude
    "claude-3-5-haiku-latest": Family.ANTHROPIC,
    "openrouter/anthropic/claude-3.7-sonnet": Family.ANTHROPIC,
    "bedrock/us.anthropic.claude-3-5-sonnet-20240620-v1:0": Family.ANTHROPIC,
    "vertex_ai/claude-sonnet-4@20250514": Family.ANTHROPIC,
    "openai/gpt-5": Family.OPENAI,
    "gpt-4o": Family.OPENAI,
    "openai/gpt-4.1-mini": Family.OPENAI,
    "openai/o3": Family.OPENAI,
    "o4-mini": Family.OPENAI,
    "openai/o1-preview": Family.OPENAI,
    "openai/codex-mini-latest": Family.OPENAI,
    "openai/gpt-5-codex": Family.OPENAI,
    "azure/gpt-4o": Family.OPENAI,
    "openrouter/openai/gpt-5": Family.OPENAI,
    "ollama/gpt-oss:20b": Family.OPENAI,
    "bedrock/openai.gpt-oss-120b-1:0": Family.OPENAI,
    "OpenAI/GPT-5": Family.OPENAI,
    "gemini/gemini-2.5-pro": Family.GEMINI,
    "gemini/some-future-name": Family.GEMINI,
    "vertex_ai/gemini-2.5-flash": Family.GEMINI,
    "openrouter/google/gemini-2.5-pro": Family.GEMINI,
    "fake/fake-model": Family.GENERAL,
    "openai/fake-model": Family.GENERAL,  # openai/ is any OpenAI-compatible server, not a GPT
    "ollama/llama3.1": Family.GENERAL,
    "deepseek/deepseek-chat": Family.GENERAL,
    "mistral/mistral-large-latest": Family.GENERAL,
    "openai/omni-local": Family.GENERAL,  # starts with "o", but is not the o-series
    "openrouter/qwen/qwen3-coder": Family.GENERAL,
}


@pytest.mark.parametrize(("model", "family"), NAMES.items())
def test_the_family_of_a_model_name(model: str, family: Family) -> None:
    assert family_of(model) is family
