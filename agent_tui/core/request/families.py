"""Which family of models a LiteLLM model name belongs to, for choosing its base prompt.

Families differ in how they follow instructions (Anthropic models read tagged
sections well, OpenAI's GPT/Codex models were trained on Markdown-headed
agent prompts and ``apply_patch``, Gemini follows numbered mandates), so each
gets the same craft in its own style. The choice reads the model's own name,
not only the provider prefix: ``openai/`` also routes to any OpenAI-compatible
server (a local Llama is not a GPT), while ``openrouter/anthropic/…``,
``bedrock/…anthropic.claude…`` or ``vertex_ai/gemini-…`` name the family
inside the path.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Family(StrEnum):
    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    GEMINI = "gemini"
    GENERAL = "general"


_OPENAI_NAME = re.compile(r"(?:^|\.)(?:gpt-|chatgpt|o[1-9](?:$|-))|codex")
"""GPT (``gpt-5``, ``gpt-4o``, ``gpt-oss``), the o-series (``o3``, ``o4-mini``) and Codex models;
after a dot too, as Bedrock spells them (``openai.gpt-oss-120b-1:0``)."""


def family_of(model: str) -> Family:
    """The family of a LiteLLM model name such as ``anthropic/claude-sonnet-4-5`` or ``openai/gpt-5``."""
    lowered = model.strip().lower()
    provider = lowered.split("/", 1)[0] if "/" in lowered else ""
    name = lowered.rsplit("/", 1)[-1]
    if provider == "anthropic" or "claude" in lowered:
        return Family.ANTHROPIC
    if provider == "gemini" or "gemini" in name:
        return Family.GEMINI
    if _OPENAI_NAME.search(name):
        return Family.OPENAI
    return Family.GENERAL
