"""Where logins are kept: the keyring when a usable one is there, else a file only the user can read."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.tools.mcp.token_store import ChosenTokenStore, FileTokenStore, KeyringTokenStore

RECORD = {"url": "https://mcp.example/mcp", "tokens": {"access_token": "at-1", "refresh_token": "rt-1"}}


def test_without_a_usable_keyring_the_file_is_created_user_only_even_with_an_open_umask(tmp_path: Path) -> None:
    store = ChosenTokenStore(tmp_path)  # conftest: keyring's fail backend
    old = os.umask(0)
    try:
        store.save("remote", RECORD)
    finally:
        os.umask(old)
    assert isinstance(store.chosen, FileTokenStore) and store.where == str(tmp_path / "mcp-tokens.json")
    assert stat.S_IMODE((tmp_path / "mcp-tokens.json").stat().st_mode) == 0o600
    assert store.load("remote") == RECORD
    assert [p.name for p in tmp_path.iterdir()] == ["mcp-tokens.json"]  # no temporary file left


def test_a_stale_wide_temporary_file_does_not_widen_the_store(tmp_path: Path) -> None:
    store = FileTokenStore(tmp_path)
    stale = tmp_path / f".mcp-tokens.json.{os.getpid()}.tmp"
    stale.write_text("{}")
    stale.chmod(0o644)
    store.save("remote", RECORD)
    assert stat.S_IMODE(store.file.stat().st_mode) == 0o600


def test_the_store_env_forces_the_file_and_a_usable_keyring_is_used_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakes import memory_keyring

    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.fakes.memory_keyring.Keyring")
    import keyring.core

    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # load the backend the variable names
    store = ChosenTokenStore(tmp_path)
    store.save("remote", RECORD)
    assert isinstance(store.chosen, KeyringTokenStore) and store.where == "the OS keyring (Keyring)"
    assert json.loads(memory_keyring.PASSWORDS[("agent-tui-mcp", "remote")]) == RECORD
    assert not (tmp_path / "mcp-tokens.json").exists()
    assert store.renewal_lock().file == tmp_path / ".mcp-tokens.lock"  # the keyring's logins lock there too
    assert store.delete("remote") is True and store.delete("remote") is False
    monkeypatch.setattr(memory_keyring, "LOCKED", [True])
    with pytest.raises(OSError, match=r"^the OS keyring \(Keyring\): KeyringLocked: the keyring is locked$"):
        store.load("remote")
    monkeypatch.setenv("AGENT_TUI_TOKEN_STORE", "file")
    assert isinstance(ChosenTokenStore(tmp_path).chosen, FileTokenStore)
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)


@settings(max_examples=30, deadline=None)
@given(
    names=st.lists(st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True), min_size=1, max_size=5, unique=True),
    token=st.text(min_size=1, max_size=40),
)
def test_records_round_trip_and_each_delete_removes_only_its_own(
    tmp_path_factory: pytest.TempPathFactory, names: list[str], token: str
) -> None:
    store = FileTokenStore(tmp_path_factory.mktemp("tokens"))
    for name in names:
        store.save(name, {"url": f"https://{name}.example/mcp", "tokens": {"access_token": token + name}})
    first, *rest = names
    assert store.delete(first) is True and store.load(first) is None
    for name in rest:
        assert store.load(name) == {"url": f"https://{name}.example/mcp", "tokens": {"access_token": token + name}}


async def test_the_renewal_lock_lets_one_holder_in_at_a_time_and_the_file_is_user_only(tmp_path: Path) -> None:
    """The second holder (another open of the lock file, as another process has) gets in only once
    the first has left; the lock file is 0600 like the records beside it."""
    import asyncio

    store = FileTokenStore(tmp_path)
    order: list[str] = []
    first_in, second_waiting, release = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with store.renewal_lock():
            order.append("first in")
            first_in.set()
            await release.wait()
            order.append("first out")

    async def second() -> None:
        await first_in.wait()
        lock = store.renewal_lock()
        second_waiting.set()
        async with lock:
            order.append("second in")

    tasks = [asyncio.ensure_future(first()), asyncio.ensure_future(second())]
    await second_waiting.wait()
    release.set()
    await asyncio.gather(*tasks)
    assert order == ["first in", "first out", "second in"]
    assert stat.S_IMODE(os.stat(tmp_path / ".mcp-tokens.lock").st_mode) == 0o600
