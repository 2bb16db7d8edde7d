"""Which model and key a session uses, and one clear sentence when the key is missing.

Model selection itself (``--model`` > ``AGENT_TUI_MODEL`` > config) is resolved by
the settings layers; this module checks that the chosen provider can
authenticate: an explicit key (``--api-key`` / ``AGENT_TUI_API_KEY`` / config)
or the provider's own variable (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ...)
that LiteLLM reads itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

# Providers whose key variable we know without importing LiteLLM.
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    "cohere": ("COHERE_API_KEY",),
    "azure": ("AZURE_API_KEY",),
}
KEYLESS = frozenset(
    {"ollama", "ollama_chat", "lm_studio", "vllm", "hosted_vllm", "llamafile", "bedrock", "vertex_ai", "sagemaker"}
)


class CredentialsError(Exception):
    """No model chosen or no key for its provider; the message says what to set."""


@dataclass(frozen=True)
class Credentials:
    """An internal value (no input to validate); a dataclass keeps pydantic off the TUI's first frame."""

    model: str
    provider: str
    api_base: str | None = None
    api_key: str | None = None  # None: LiteLLM reads the provider's variable itself


def provider_name(model: str, use_litellm: bool = True) -> str:
    """``openai/gpt-4o`` -> ``openai``; a bare name asks LiteLLM ("" when it cannot tell, or
    without ``use_litellm``)."""
    if "/" in model:
        return model.split("/", 1)[0]
    if not use_litellm:
        return ""
    from agent_tui.llm import lazy

    try:
        provider: str = lazy.load().get_llm_provider(model)[1]
        return provider
    except Exception:  # noqa: BLE001 - unknown bare model name
        return ""


def _litellm_providers() -> set[str]:
    from agent_tui.llm import lazy

    return {str(getattr(name, "value", name)) for name in lazy.load().provider_list}


def _missing_from_litellm(model: str) -> list[str]:
    from agent_tui.llm import lazy

    try:
        report = lazy.load().validate_environment(model=model)
    except Exception:  # noqa: BLE001 - unknown provider: let the call report it
        return []
    return list(report.get("missing_keys") or [])


def check_credentials(
    model: str,
    *,
    api_key: str | None = None,
    environ: Mapping[str, str] | None = None,
    use_litellm: bool = True,
) -> str:
    """Return the provider name, or raise :class:`CredentialsError` naming what to fix: an unknown
    model or provider, or the variable to set. Without ``use_litellm`` only what is known without
    importing LiteLLM is checked (the TUI's first frame); the first step checks the rest."""
    environ = os.environ if environ is None else environ
    provider = provider_name(model, use_litellm)
    if not provider:
        if not use_litellm:
            return provider
        raise CredentialsError(
            f"Unknown model {model}: LiteLLM cannot tell its provider; name it as provider/model, e.g. openai/gpt-4o."
        )
    known = provider in KEYLESS or provider in PROVIDER_KEYS
    if not known and use_litellm and provider not in _litellm_providers():
        raise CredentialsError(
            f"Unknown provider {provider} in {model}: use one LiteLLM knows, e.g. openai/, anthropic/, ollama/."
        )
    if api_key or provider in KEYLESS:
        return provider
    names = PROVIDER_KEYS.get(provider)
    if names is None:
        names = tuple(_missing_from_litellm(model)) if use_litellm and environ is os.environ else ()
        if not names:
            return provider
    if any(environ.get(name) for name in names):
        return provider
    raise CredentialsError(f"No API key for {model}: set {names[0]} (or pass --api-key, or set AGENT_TUI_API_KEY).")


def resolve_credentials(
    model: str | None,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    model_api_base: str | None = None,
    environ: Mapping[str, str] | None = None,
    use_litellm: bool = True,
) -> Credentials:
    """Check a chosen model can be called; ``model_api_base`` is ``[models."<m>"] api_base``."""
    if not model:
        raise CredentialsError("No model selected: pass --model, set AGENT_TUI_MODEL, or set model in config.toml.")
    provider = check_credentials(model, api_key=api_key, environ=environ, use_litellm=use_litellm)
    return Credentials(model=model, provider=provider, api_base=model_api_base or api_base, api_key=api_key or None)
