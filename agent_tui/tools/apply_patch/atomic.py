"""Replacing a file's bytes so that a failed write leaves the old file whole.

The new bytes go to a temporary file in the same directory, are flushed to
disk (fsync), then renamed over the target, so a reader sees either the old
file or the new one, never a truncated mix. The old file's mode and owner are
carried over before the rename; a new file gets the mode ``open`` would give
it (0o666 less the umask). A file we may not write stays as it is, as it would
with a write in place. The rename gives the path a new inode, so another hard
link to the old file keeps the old bytes.
"""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``; on any ``OSError`` the old file (if any) is untouched and no temporary is left."""
    try:
        old = os.stat(path)
    except FileNotFoundError:
        old = None
    if old is not None and not os.access(path, os.W_OK):
        # Renaming over it would succeed; writing it in place would not. A read-only file stays read-only.
        raise PermissionError(errno.EACCES, "Permission denied (the file is read-only)")
    temp = path.with_name(f".{path.name[:200]}.{secrets.token_hex(4)}.apply_patch.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            if old is not None:
                _keep_owner_and_mode(fd, old)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    new = os.fstat(fd)
    if (old.st_uid, old.st_gid) != (new.st_uid, new.st_gid):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except PermissionError:
            raise PermissionError(
                f"cannot keep its owner ({old.st_uid}:{old.st_gid}) on a rewritten copy; the file was left as it was"
            ) from None
    os.fchmod(fd, old.st_mode & 0o7777)


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; some filesystems refuse to fsync a directory, which is harmless."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
