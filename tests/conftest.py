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


@pytest.fixture
async def fake():  # type: ignore[no-untyped-def]
    """The project's fake provider over real HTTP (OpenAI and Anthropic wires)."""
    from agent_tui.testing.fake_provider import FakeProvider

    async with FakeProvider() as provider:
        yield provider


@pytest.fixture
def open_runtime(fake):  # type: ignore[no-untyped-def]
    """``await open_runtime(...)`` -> a Runtime against the fake provider (use it with ``async with``).

    ``tools``: "test" (only the test tools), "all" (built-ins + test tools) or a
    registry factory; ``cli`` adds settings layers over the fake's model and key.
    """
    from agent_tui.core.config import load_settings
    from agent_tui.core.runtime import Runtime
    from agent_tui.core.tool_host import build_registry
    from agent_tui.testing.test_tools import register as register_test_tools
    from agent_tui.tools.registry import ToolRegistry

    def registry_for(kind):  # type: ignore[no-untyped-def]
        def make(location: Path) -> ToolRegistry:
            tools = ToolRegistry(location) if kind == "test" else build_registry(location)
            register_test_tools(tools)
            return tools
        return make if isinstance(kind, str) else kind

    async def opener(*, cli=None, policy=None, tools="test", clock=None):  # type: ignore[no-untyped-def]
        layer = {"model": "openai/fake-model", "api_base": fake.openai_base, "api_key": "test-key", **(cli or {})}
        return await Runtime.open(lambda location: load_settings(location, cli=layer), permission_policy=policy,
                                  clock=clock, registry_factory=registry_for(tools))

    return opener
