"""Model metadata: context window, output limit, vision — LiteLLM's map plus config overrides.

An unknown window is not an error: automatic compaction is turned off and
``ModelInfo.warning`` carries the one sentence to show (overflow recovery
still works because it reacts to the provider's error).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_tui.llm import lazy
from agent_tui.llm.types import ModelInfo

_FIELDS = ("context_window", "max_output_tokens", "supports_vision")


def _override(overrides: Any, name: str) -> Any:
    if overrides is None:
        return None
    if isinstance(overrides, Mapping):
        return overrides.get(name)
    return getattr(overrides, name, None)


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _litellm_info(model: str) -> dict[str, Any]:
    litellm = lazy.load()
    try:
        info = litellm.get_model_info(model)
    except Exception:  # noqa: BLE001 - "model not mapped" is an ordinary answer here
        return {}
    return dict(info) if info else {}


def model_info(model: str, overrides: Any = None) -> ModelInfo:
    """Limits for ``model``; ``overrides`` is a ``[models."<name>"]`` table (mapping or object).

    Imports LiteLLM unless the overrides answer everything; call ``await warm()`` first
    on an event loop that must not stall.
    """
    chosen = {name: _override(overrides, name) for name in _FIELDS}
    known: dict[str, Any] = {}
    if any(value is None for value in chosen.values()):
        known = _litellm_info(model)
    window = (
        _positive(chosen["context_window"])
        or _positive(known.get("max_input_tokens"))
        or _positive(known.get("max_tokens"))
    )
    output = _positive(chosen["max_output_tokens"]) or _positive(known.get("max_output_tokens"))
    vision = chosen["supports_vision"] if chosen["supports_vision"] is not None else bool(known.get("supports_vision"))
    warning = None
    if window is None:
        warning = (
            f"The context window of {model} is unknown, so automatic compaction is off; "
            f'set [models."{model}"] context_window in config.toml to turn it on.'
        )
    tools, choice = known.get("supports_function_calling"), known.get("supports_tool_choice")
    return ModelInfo(
        model=model,
        context_window=window,
        max_output_tokens=output,
        supports_vision=vision,
        supports_tools=tools if isinstance(tools, bool) else None,
        supports_tool_choice=choice if isinstance(choice, bool) else None,
        warning=warning,
    )
