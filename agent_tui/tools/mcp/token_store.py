"""Where ``agent-tui mcp login`` keeps a remote server's OAuth tokens: the OS keyring, else a file only the user reads.

A login is one JSON record per server name (its URL, tokens, when the access token expires, the
client registration and the discovered metadata a refresh needs). The OS keyring is used when
``keyring`` finds a usable backend (macOS Keychain, Windows Credential Locker, the Secret Service
on a desktop Linux); a headless machine has none, so the records go to ``mcp-tokens.json`` under
the data directory instead, created with mode 0600 (never world-readable, not even between the
create and a chmod) and replaced atomically. ``AGENT_TUI_TOKEN_STORE=file`` forces the file
(keyring's own ``PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring`` does too).

Nothing here logs or prints a record: they hold secrets.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Protocol

STORE_ENV = "AGENT_TUI_TOKEN_STORE"
"""``file``: keep tokens in the file even where a keyring works (tests set it)."""
FILE_NAME = "mcp-tokens.json"
KEYRING_SERVICE = "agent-tui-mcp"

Record = dict[str, Any]


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

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self.where = f"the OS keyring ({type(backend).__name__})"

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
            self._chosen = KeyringTokenStore(backend) if backend is not None else FileTokenStore(self._data_dir)
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
