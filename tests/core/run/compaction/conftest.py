"""Compaction runs inside the runner: reuse the runner's fixtures (real store, fake provider over HTTP)."""

from __future__ import annotations

from typing import Any

from agent_tui.core.settings.config import Settings
from tests.core.run.runner.conftest import clock, kinds, of_type, runtime, settings_overrides, settle, stored

__all__ = ["clock", "kinds", "of_type", "runtime", "settings_overrides", "settle", "stored", "small_window"]

MODEL = "openai/fake-model"


def small_window(window: int, *, buffer: int = 50, keep_tokens: int = 100, max_output: int = 40) -> dict[str, Any]:
    """Settings overrides: a known, small context window for the fake model."""
    return {
        "models": {MODEL: {"context_window": window, "max_output_tokens": max_output, "supports_vision": False}},
        "compaction": {"buffer": buffer, "keep_tokens": keep_tokens},
    }


def default_settings() -> Settings:
    return Settings()
