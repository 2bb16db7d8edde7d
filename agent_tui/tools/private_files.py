"""Files only the user can read: directories 0700, files 0600.

What agent-tui keeps for the user (long outputs, snapshots, MCP logs) can hold
secrets a command printed or a file held; on a shared machine the default
umask (0644 files, 0755 folders) would let every local user read them. The
database is 0600 already (``core.store``); everything else goes through here.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its missing parents) as 0700; a folder of ours left wider by an
    older version is narrowed. Parents that already exist are left as they are."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    info = path.stat()
    if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) != DIR_MODE:
        os.chmod(path, DIR_MODE)
    return path


def open_private(path: Path) -> BinaryIO:
    """A new (or truncated) file for writing, 0600 whatever the umask, in a private folder."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    os.fchmod(fd, FILE_MODE)  # an existing file keeps its mode through O_CREAT
    return os.fdopen(fd, "wb")


def touch_private(path: Path) -> Path:
    """Make sure ``path`` exists as a 0600 file, keeping what it holds (a log others append to)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    return path
