"""The environment facts and the short reminders the runner adds (the base prompt is ``base_prompts``)."""

from __future__ import annotations

import datetime as _dt
import platform
from pathlib import Path

FINAL_STEP_REMINDER = (
    "This is the final step allowed for this turn: tools are unavailable. Reply with a "
    "summary of what you did, what is left, and what the user should do next."
)


def environment_facts(location: Path, project_root: Path, today: _dt.date | None = None) -> str:
    is_git = (project_root / ".git").exists()
    today = today or _dt.date.today()
    return (
        "<environment>\n"
        f"Working directory: {location}\n"
        f"Project root: {project_root}\n"
        f"Git repository: {'yes' if is_git else 'no'}\n"
        f"Platform: {platform.system().lower()}\n"
        f"Today's date: {today.isoformat()}\n"
        "</environment>"
    )
