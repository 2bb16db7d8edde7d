"""Compaction runs inside the runner: reuse the runner's fixtures (real store, fake provider over HTTP)."""

from __future__ import annotations

from typing import Any

from agent_tui.core.settings.config import Settings
from tests.core.run.runner.conftest import clock, kinds, of_type, runtime, settings_overrides, settle, stored

__all__ = ["clock", "kinds", "of_type", "runtime", "settings_overrides", "settle", "stored", "small_window"]

MODEL = "openai/fake-model"


def small_window(window: int, *, buffer: int = 50, keep_tokens: int = 100, max_output: int = 40) -> dict[str, Any]:
    """Settings overrides: a known, small context window for the fake model.

    The agent gets a short prompt of its own: a family base prompt (thousands of characters)
    would fill a window this small by itself, and these numbers are about the history."""
    return {
        "models": {MODEL: {"context_window": window, "max_output_tokens": max_output, "supports_vision": False}},
        "compaction": {"buffer": buffer, "keep_tokens": keep_tokens},
        "agents": {"build": {"prompt": "You are a coding agent in the user's project."}},
    }


def default_settings() -> Settings:
    return Settings()
