"""Where ``agent-tui mcp login`` keeps a remote server's OAuth tokens: the OS keyring, else a file only the user reads.

A login is one JSON record per server name (its URL, tokens, when the access token expires, the
client registration and the discovered metadata a refresh needs). The OS keyring is used when
``keyring`` finds a usable backend (macOS Keychain, Windows Credential Locker, the Secret Service
on a desktop Linux); a headless machine has none, so the records go to ``mcp-tokens.json`` under
the data directory instead, created with mode 0600 (never world-readable, not even between the
create and a chmod) and replaced atomically. ``AGENT_TUI_TOKEN_STORE=file`` forces the file
(keyring's own ``PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring`` does too).

A refresh rotates the refresh token (the old one stops working), so two processes that refresh one
login at once would each send the old token and one would be refused, or store the tokens the
other has just replaced. ``RenewalLock`` (a ``flock`` on a file beside the records, used for the
keyring too) is held across read-refresh-write: the holder re-reads the record first and adopts
tokens another process stored meanwhile instead of refreshing again.

Nothing here logs or prints a record: they hold secrets.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import time
from pathlib import Path
from typing import Any, Protocol

STORE_ENV = "AGENT_TUI_TOKEN_STORE"
"""``file``: keep tokens in the file even where a keyring works (tests set it)."""
FILE_NAME = "mcp-tokens.json"
KEYRING_SERVICE = "agent-tui-mcp"

LOCK_NAME = ".mcp-tokens.lock"
LOCK_WAIT_S = 60.0
"""How long a refresh waits for another process's refresh of a login to end."""
LOCK_POLL_S = 0.02

Record = dict[str, Any]


class RenewalLock:
    """An exclusive cross-process lock (``flock``) held across one login's read-refresh-write.

    Async: it is taken by polling (never a blocked thread that a cancelled task would leave holding
    it), and given up after ``LOCK_WAIT_S`` with ``OSError``."""

    def __init__(self, directory: Path) -> None:
        self.file = directory / LOCK_NAME
        self._fd = -1

    async def __aenter__(self) -> RenewalLock:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise OSError(
                        f"{self.file}: another process kept the MCP login locked for {LOCK_WAIT_S:g} s"
                    ) from None
                await asyncio.sleep(LOCK_POLL_S)
            except BaseException:
                os.close(fd)
                raise
        self._fd = fd
        return self

    async def __aexit__(self, *_: object) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)  # closing drops the flock


class TokenStore(Protocol):
    """Login records by server name."""

    @property
    def where(self) -> str:
        """Where the records live, for the user (``the OS keyring (…)`` or the file's path)."""
        ...

    def load(self, name: str) -> Record | None: ...

    def save(self, name: str, record: Record) -> None: ...

    def delete(self, name: str) -> bool:
        """Forget the server's record; False when there was none."""
        ...

    def renewal_lock(self) -> RenewalLock:
        """The lock a refresh holds while it reads, refreshes and writes a record."""
        ...


class FileTokenStore:
    """All records in one JSON object in ``mcp-tokens.json`` (mode 0600)."""

    def __init__(self, directory: Path) -> None:
        self.file = directory / FILE_NAME
        self.where = str(self.file)

    def _all(self) -> dict[str, Record]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:  # a damaged file: say so, never print its content
            raise OSError(f"{self.file}: cannot read the stored MCP logins ({type(error).__name__})") from None
        return data if isinstance(data, dict) else {}

    def _write(self, records: dict[str, Record]) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.file.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)  # a umask can only narrow it; a stale temporary file may have been wider
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(records, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.file)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise

    def renewal_lock(self) -> RenewalLock:
        return RenewalLock(self.file.parent)

    def load(self, name: str) -> Record | None:
        record = self._all().get(name)
        return record if isinstance(record, dict) else None

    def save(self, name: str, record: Record) -> None:
        records = self._all()
        records[name] = record
        self._write(records)

    def delete(self, name: str) -> bool:
        records = self._all()
        if name not in records:
            return False
        del records[name]
        self._write(records)
        return True


class KeyringTokenStore:
    """One keyring entry per server (service ``agent-tui-mcp``, the server's name as the user). A
    keyring that fails (locked, its service gone) raises ``OSError`` saying so, as the file does."""

    def __init__(self, backend: Any, lock_directory: Path) -> None:
        self._backend = backend
        self._lock_directory = lock_directory
        self.where = f"the OS keyring ({type(backend).__name__})"

    def renewal_lock(self) -> RenewalLock:
        return RenewalLock(self._lock_directory)

    def _call(self, method: str, *args: str) -> Any:
        from keyring.errors import KeyringError

        try:
            return getattr(self._backend, method)(KEYRING_SERVICE, *args)
        except KeyringError as error:
            raise OSError(f"{self.where}: {type(error).__name__}: {error}") from None

    def load(self, name: str) -> Record | None:
        text = self._call("get_password", name)
        if not text:
            return None
        try:
            record = json.loads(text)
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def save(self, name: str, record: Record) -> None:
        self._call("set_password", name, json.dumps(record))

    def delete(self, name: str) -> bool:
        if self._call("get_password", name) is None:
            return False
        self._call("delete_password", name)
        return True


def usable_keyring() -> Any | None:
    """The keyring backend, when ``keyring`` is installed and has one that stores (priority above 0:
    not the fail backend, not a chainer with nothing in it); None otherwise."""
    if os.environ.get(STORE_ENV, "").strip().lower() == "file":
        return None
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
        usable = not isinstance(backend, fail.Keyring) and float(backend.priority) > 0
    except Exception:  # noqa: BLE001 - a broken backend (no D-Bus session, a locked store) is no keyring
        return None
    return backend if usable else None


class ChosenTokenStore:
    """The keyring when a usable one exists, else the file under the data directory: chosen at the
    first use, so a session with no remote server never imports ``keyring``."""

    def __init__(self, data_dir: Path) -> None:
        self._data_dir = data_dir
        self._chosen: TokenStore | None = None

    @property
    def chosen(self) -> TokenStore:
        if self._chosen is None:
            backend = usable_keyring()
            self._chosen = (
                KeyringTokenStore(backend, self._data_dir) if backend is not None else FileTokenStore(self._data_dir)
            )
        return self._chosen

    @property
    def where(self) -> str:
        return self.chosen.where

    def load(self, name: str) -> Record | None:
        return self.chosen.load(name)

    def save(self, name: str, record: Record) -> None:
        self.chosen.save(name, record)

    def delete(self, name: str) -> bool:
        return self.chosen.delete(name)

    def renewal_lock(self) -> RenewalLock:
        return self.chosen.renewal_lock()
