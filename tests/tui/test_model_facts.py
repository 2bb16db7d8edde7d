"""What the TUI knows about its model before LiteLLM: the one-line setup hint and context windows."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_tui.core.api import Settings
from agent_tui.tui.model_facts import ModelFacts, setup_hint


@pytest.mark.parametrize(
    ("model", "api_key", "hint"),
    [
        (None, None, "No model selected: pass --model, set AGENT_TUI_MODEL, or set model in config.toml."),
        ("openai/gpt-4o", None, "No API key for openai/gpt-4o: set OPENAI_API_KEY"),
        ("openai/gpt-4o", "sk-x", None),
        ("ollama/llama3", None, None),
    ],
)
def test_setup_hint_says_in_one_line_what_to_set(
    model: str | None, api_key: str | None, hint: str | None, monkeypatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    found = setup_hint(model, None, api_key)
    if hint is None:
        assert found is None
    else:
        assert found is not None and found.startswith(hint) and "\n" not in found


def test_setup_hint_never_imports_litellm() -> None:
    code = (
        "import sys\nfrom agent_tui.tui.model_facts import setup_hint\n"
        "for m in (None, 'openai/x', 'gpt-4o', 'huggingface/x', 'foo/bar'):\n    setup_hint(m, None, None)\n"
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_context_window_from_config_before_litellm_warms() -> None:
    facts = ModelFacts()
    assert facts.window("openai/fake") is None  # settings not validated yet
    facts.settings = Settings(models={"openai/fake": {"context_window": 1234}})
    assert facts.window("openai/fake") == 1234
    assert facts.window("openai/unknown") is None and facts.window(None) is None
