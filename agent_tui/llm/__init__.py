"""LiteLLM adapter: ``stream``, ``warm``, ``model_info``, credentials, error classification.

Importing this package is cheap and never imports LiteLLM (nor pydantic):
names are resolved lazily from their submodules on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "stream": "agent_tui.llm.streaming",
    "warm": "agent_tui.llm.lazy",
    "model_info": "agent_tui.llm.models",
    "resolve_credentials": "agent_tui.llm.credentials",
    "check_credentials": "agent_tui.llm.credentials",
    "CredentialsError": "agent_tui.llm.credentials",
    "LLMError": "agent_tui.llm.errors",
    "classify": "agent_tui.llm.errors",
}
_TYPES = (
    "Request",
    "UserTurn",
    "AssistantTurn",
    "SystemReminder",
    "HistoryMessage",
    "RequestText",
    "RequestFile",
    "RequestImage",
    "TextBlock",
    "ReasoningBlock",
    "ToolUse",
    "ToolUseResult",
    "ToolSpec",
    "LLMEvent",
    "TextStart",
    "TextDelta",
    "TextEnd",
    "ReasoningStart",
    "ReasoningDelta",
    "ReasoningEnd",
    "ToolInputStart",
    "ToolInputDelta",
    "ToolCall",
    "Finish",
    "FinishReason",
    "ModelInfo",
)
_EXPORTS.update({name: "agent_tui.llm.types" for name in _TYPES})

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from agent_tui.llm.credentials import CredentialsError as CredentialsError
    from agent_tui.llm.credentials import check_credentials as check_credentials
    from agent_tui.llm.credentials import resolve_credentials as resolve_credentials
    from agent_tui.llm.errors import LLMError as LLMError
    from agent_tui.llm.errors import classify as classify
    from agent_tui.llm.lazy import warm as warm
    from agent_tui.llm.models import model_info as model_info
    from agent_tui.llm.streaming import stream as stream
    from agent_tui.llm.types import *  # noqa: F403


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agent_tui.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
