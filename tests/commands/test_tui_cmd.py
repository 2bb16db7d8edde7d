"""``agent-tui`` start-up helpers: the one-line setup hint and context windows."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_tui.commands.tui_cmd import ModelFacts, setup_hint
from agent_tui.core.config import Settings


@pytest.mark.parametrize(
    ("settings", "hint"),
    [
        (Settings(), "No model selected: pass --model, set AGENT_TUI_MODEL, or set model in config.toml."),
        (Settings(model="openai/gpt-4o"), "No API key for openai/gpt-4o: set OPENAI_API_KEY"),
        (Settings(model="openai/gpt-4o", api_key="sk-x"), None),
        (Settings(model="ollama/llama3"), None),
    ],
)
def test_setup_hint_says_in_one_line_what_to_set(settings: Settings, hint: str | None, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    found = setup_hint(settings)
    if hint is None:
        assert found is None
    else:
        assert found is not None and found.startswith(hint) and "\n" not in found


def test_setup_hint_never_imports_litellm() -> None:
    code = (
        "import sys\nfrom agent_tui.commands.tui_cmd import setup_hint\nfrom agent_tui.core.config import Settings\n"
        "for m in (None, 'openai/x', 'gpt-4o'):\n    setup_hint(Settings(model=m))\n"
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_context_window_from_config_before_litellm_warms() -> None:
    facts = ModelFacts(Settings(models={"openai/fake": {"context_window": 1234}}))
    assert facts.window("openai/fake") == 1234
    assert facts.window("openai/unknown") is None and facts.window(None) is None


def test_tui_start_path_does_not_import_litellm() -> None:
    code = "import sys\nimport agent_tui.commands.tui_cmd, agent_tui.tui.app\nprint('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
