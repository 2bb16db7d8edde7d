"""What the TUI knows about its model: the context window, and what is missing to use it.

Both are asked before LiteLLM is imported (it costs ~3 s and ~200 MB, and is
warmed in a thread after the first frame): the window comes from the config's
per-model overrides until LiteLLM's model map is loaded, and the setup hint
checks only what is known without it.

Both come through ``core.api`` (the TUI never imports ``llm`` itself), loaded
lazily: the setup hint's check needs only the credentials module.
"""

from __future__ import annotations

from typing import Any


class ModelFacts:
    """Context windows: config overrides once the settings are validated, then LiteLLM's map."""

    def __init__(self) -> None:
        self.settings: Any = None  # Settings, set by the bootstrap once validated after the first frame
        self.windows: dict[str, int | None] = {}

    def window(self, model: str | None) -> int | None:
        if not model or self.settings is None:
            return None
        if model not in self.windows:
            configured = self.settings.model_settings(model).context_window
            if configured is not None:
                self.windows[model] = configured
        return self.windows.get(model)

    def learn(self, model: str | None) -> None:
        """Blocking (may import LiteLLM): run in a worker thread."""
        if not model or self.settings is None or self.windows.get(model) is not None:
            return
        from agent_tui.core.api import load_llm, model_info

        load_llm()
        self.windows[model] = model_info(model, self.settings.model_settings(model)).context_window


def setup_hint(model: str | None, api_base: str | None, api_key: str | None) -> str | None:
    """One line saying what to configure, or None when a model and key are set."""
    from agent_tui.core.api import CredentialsError, resolve_credentials

    try:  # only what is known without LiteLLM (not imported before the first frame): the first step checks the rest
        resolve_credentials(model, api_base=api_base, api_key=api_key, use_litellm=False)
    except CredentialsError as error:
        return str(error)
    return None
