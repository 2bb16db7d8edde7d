"""Shared fixtures. Every test gets its own ``AGENT_TUI_HOME``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")


@pytest.fixture(autouse=True)
def agent_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("agent-home")
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    for name in list(os.environ):
        if name.startswith("AGENT_TUI_") and name not in {"AGENT_TUI_HOME"}:
            monkeypatch.delenv(name)
    monkeypatch.setenv("LITELLM_OFFLINE_MODE", "true")
    return home


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A session location that is its own project root."""
    location = tmp_path / "project"
    location.mkdir()
    (location / ".git").mkdir()
    return location
