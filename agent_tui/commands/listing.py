"""What ``agent-tui skills`` and ``agent-tui agents`` share: the settings of their ``DIR``, and ``--json``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.commands.errors import fail

if TYPE_CHECKING:
    from agent_tui.core.api import Settings


def settings_for(directory: str) -> Settings | int:
    """The settings for ``directory``; else the exit code, after one line on stderr."""
    from agent_tui.core.api import ConfigError, load_settings

    path = Path(directory)
    if not path.is_dir():
        return fail(f"{path}: not a directory")
    try:
        return load_settings(path)
    except ConfigError as error:
        return fail(str(error))


def write_json(rows: Iterable[Any], problems: Iterable[str]) -> int:
    """One JSON object per row (a dataclass), then one per problem; exit code 0."""
    sys.stdout.writelines(json.dumps(asdict(row)) + "\n" for row in rows)
    sys.stdout.writelines(json.dumps({"problem": line}) + "\n" for line in problems)
    return 0
