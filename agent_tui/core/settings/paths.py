"""Where agent-tui keeps its database, config and spill files.

``AGENT_TUI_HOME=DIR`` puts everything under DIR (tests and benchmarks always
set it); otherwise the platform's user data and config directories are used.
"""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "AGENT_TUI_HOME"
DISABLE_PROJECT_ENV = "AGENT_TUI_DISABLE_PROJECT_CONFIG"
"""Set: the project's own instruction files and skills are not read (its config neither, see ``config_layers``)."""
APP_NAME = "agent-tui"


def home() -> Path | None:
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    base = home()
    if base is not None:
        return base
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    base = home()
    if base is not None:
        return base
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def database_path() -> Path:
    return data_dir() / "agent-tui.db"


def user_config_file() -> Path:
    return config_dir() / "config.toml"


def spill_dir() -> Path:
    return data_dir() / "spill"


def user_themes_dir() -> Path:
    return config_dir() / "themes"


def user_skills_dir() -> Path:
    return config_dir() / "skills"


def project_root(location: Path) -> Path:
    """Nearest ancestor holding ``.git``, else the location itself."""
    location = location.resolve()
    for candidate in (location, *location.parents):
        if (candidate / ".git").exists():
            return candidate
    return location


def project_config_file(location: Path) -> Path:
    return location / ".agent-tui" / "config.toml"
