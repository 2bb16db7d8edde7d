"""Choices the user makes in the app that should outlive it (``/theme NAME``), written into their
own config file as if typed there: one top-level key, the rest of the file as it was."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.settings import paths
from agent_tui.core.settings.toml_file import read_document, write_atomically

REMEMBERED_KEYS = frozenset({"theme"})
"""What the app may write: a key the user would otherwise set by hand, never a power (a model
endpoint, a rule, a server) that a click should not grant."""


def remember_choice(key: str, value: str) -> Path:
    """Set ``key = value`` at the top of the user's config file (made if missing); returns the file.

    Raises ``ConfigError`` for a file that is not valid TOML (it is left as it is)."""
    if key not in REMEMBERED_KEYS:
        raise ValueError(f"{key} is not a choice the app remembers")
    file = paths.user_config_file()
    document = read_document(file)
    document[key] = value
    write_atomically(file, document.as_string())
    return file
