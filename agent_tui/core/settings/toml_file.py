"""A config file as a TOML document: read with its comments and layout, replaced atomically.

``agent-tui mcp add|remove`` and the TUI's remembered choices (``/theme``) edit files people also
edit by hand, so comments, order and formatting must survive: tomlkit reads and writes the file as
a document, not as data. The new text replaces the file atomically (a temporary file beside it,
then a rename), so a reader never sees half a file and a crash leaves the old one.
"""

from __future__ import annotations

import os
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from agent_tui.core.settings.config_layers import ConfigError


def read_document(file: Path) -> tomlkit.TOMLDocument:
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{file}: cannot read: {error}") from None
    try:
        return tomlkit.parse(text)
    except TOMLKitError as error:
        raise ConfigError(f"{file}: invalid TOML: {error}") from None


def write_atomically(file: Path, text: str) -> None:
    """Replace ``file`` atomically, keeping its permissions (a new one is the user's only: a
    config file may hold keys)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = file.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600
    temporary = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, file)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
