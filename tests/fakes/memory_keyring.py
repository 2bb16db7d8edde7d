"""A keyring backend that keeps passwords in this process's memory: ``PYTHON_KEYRING_BACKEND=tests.fakes.memory_keyring.Keyring``
makes ``keyring`` load it as it would the OS's, so the keyring path runs without touching a real one."""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import KeyringLocked, PasswordDeleteError

PASSWORDS: dict[tuple[str, str], str] = {}
LOCKED: list[bool] = [False]
"""``LOCKED[0] = True``: every call fails as a locked keyring does."""


class Keyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        if LOCKED[0]:
            raise KeyringLocked("the keyring is locked")
        return PASSWORDS.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        PASSWORDS[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if PASSWORDS.pop((service, username), None) is None:
            raise PasswordDeleteError(username)
