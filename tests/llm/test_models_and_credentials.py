"""Model metadata with config overrides, and the one-sentence missing-key error."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agent_tui.llm.credentials import CredentialsError, check_credentials, resolve_credentials
from agent_tui.llm.models import model_info


def test_known_model_from_litellm() -> None:
    info = model_info("anthropic/claude-sonnet-4-5")
    assert info.context_window and info.context_window >= 100_000
    assert info.max_output_tokens and info.supports_vision and info.warning is None


def test_config_overrides_win() -> None:
    overrides = SimpleNamespace(context_window=8000, max_output_tokens=1000, supports_vision=None)
    info = model_info("openai/fake", overrides)
    assert (info.context_window, info.max_output_tokens, info.supports_vision, info.warning) == (
        8000,
        1000,
        False,
        None,
    )
    info = model_info("anthropic/claude-sonnet-4-5", {"context_window": 50_000})
    assert info.context_window == 50_000 and info.max_output_tokens and info.max_output_tokens > 1000


def test_unknown_window_is_a_warning_not_a_crash() -> None:
    info = model_info("openai/some-local-model")
    assert info.context_window is None
    assert info.warning is not None and "automatic compaction is off" in info.warning
    assert 'models."openai/some-local-model"' in info.warning


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("openai/gpt-4o", "OPENAI_API_KEY"),
        ("gpt-4o", "OPENAI_API_KEY"),
        ("openrouter/x/y", "OPENROUTER_API_KEY"),
    ],
)
def test_missing_key_names_the_variable(model: str, variable: str) -> None:
    with pytest.raises(CredentialsError) as caught:
        check_credentials(model, environ={})
    message = str(caught.value)
    assert variable in message and model in message and message.count(".") >= 1 and "\n" not in message


def test_key_from_environment_or_flag() -> None:
    assert check_credentials("anthropic/claude-x", environ={"ANTHROPIC_API_KEY": "sk"}) == "anthropic"
    assert check_credentials("anthropic/claude-x", api_key="sk", environ={}) == "anthropic"
    assert check_credentials("ollama/llama3", environ={}) == "ollama"


def test_resolve_credentials() -> None:
    creds = resolve_credentials(
        "openai/fake", api_base="http://a/v1", api_key="k", model_api_base="http://b/v1", environ={}
    )
    assert (creds.provider, creds.api_base, creds.api_key) == ("openai", "http://b/v1", "k")
    with pytest.raises(CredentialsError, match="No model selected: pass --model, set AGENT_TUI_MODEL"):
        resolve_credentials(None, environ={})


@pytest.mark.parametrize(
    ("model", "says"),
    [("foo/bar", "Unknown provider foo in foo/bar"), ("not-a-model", "Unknown model not-a-model")],
)
def test_unknown_models_and_providers_are_named_before_any_call(model: str, says: str) -> None:
    with pytest.raises(CredentialsError) as caught:
        check_credentials(model, api_key="k", environ={})
    assert str(caught.value).startswith(says) and "\n" not in str(caught.value)


def test_providers_litellm_knows_pass() -> None:
    assert check_credentials("huggingface/bigcode/starcoder", api_key="k", environ={}) == "huggingface"
    assert check_credentials("gpt-4o", api_key="k", environ={}) == "openai"  # a bare name LiteLLM knows


def test_without_litellm_only_cheap_checks_run(monkeypatch) -> None:
    """The TUI's first frame: never imports LiteLLM, so what it cannot tell passes (the first step checks)."""
    from agent_tui.llm import lazy

    def no_import() -> None:
        raise AssertionError("LiteLLM must not be imported here")

    monkeypatch.setattr(lazy, "load", no_import)
    for model in ("foo/bar", "not-a-model", "cerebras/llama3"):
        check_credentials(model, environ={}, use_litellm=False)
    with pytest.raises(CredentialsError, match="OPENAI_API_KEY"):
        check_credentials("openai/gpt-4o", environ={}, use_litellm=False)
