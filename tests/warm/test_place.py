"""Which warm process fits a launch (the key), where it listens, and the settings that switch it off."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from agent_tui.warm import place

STAMP = "1:1"
BASE = {"PATH": "/usr/bin", "HOME": "/home/someone", "LANG": "C.UTF-8", "AGENT_TUI_HOME": "/tmp/a"}


def key(**changes: str | None) -> str:
    env = dict(BASE)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return place.launch_key(env, stamp=STAMP)


@pytest.mark.parametrize(
    "name",
    [
        "LITELLM_LOG",
        "LITELLM_LOCAL_MODEL_COST_MAP",
        "TEXTUAL_DRIVER",
        "TEXTUAL_COLOR_SYSTEM",
        "HTTPS_PROXY",
        "https_proxy",
        "NO_PROXY",
        "ALL_PROXY",
        "SSL_CERT_FILE",
        "REQUESTS_CA_BUNDLE",
        "PYTHONUTF8",
        "LC_ALL",
        "NO_COLOR",
        "AGENT_TUI_RETRY__MAX_RETRIES",
        "AGENT_TUI_WARM__IDLE_MINUTES",
        "AGENT_TUI_NO_WARM",
    ],
)
def test_a_variable_read_at_import_changes_the_key(name: str) -> None:
    assert key(**{name: "1"}) != key()
    assert key(**{name: "1"}) != key(**{name: "2"})


def test_changing_lang_changes_the_key() -> None:
    assert key(LANG="de_DE.UTF-8") != key()


@pytest.mark.parametrize("name", sorted(place.READ_PER_LAUNCH))
def test_a_variable_read_per_launch_leaves_the_key(name: str) -> None:
    assert not place.in_key(name)
    assert key(**{name: "/somewhere/else"}) == key()
    assert key(**{name: None}) == key()


@pytest.mark.parametrize("name", ["PATH", "HOME", "TERM", "PWD", "OPENAI_API_KEY", "SOME_TOOL_SETTING"])
def test_other_variables_leave_the_key(name: str) -> None:
    assert key(**{name: "changed"}) == key()


def test_the_key_names_the_code_and_is_sixteen_hex_digits() -> None:
    first = place.launch_key(BASE, stamp="1:1")
    assert len(first) == 16 and int(first, 16) >= 0
    assert place.launch_key(BASE, stamp="2:1") != first
    assert place.launch_key(BASE, stamp="1:2") != first
    assert place.launch_key(dict(reversed(list(BASE.items()))), stamp="1:1") == first  # order does not matter


def test_an_undecodable_value_still_makes_a_key() -> None:
    """Environment values are bytes on POSIX; Python decodes the rest with surrogateescape."""
    assert key(LITELLM_LOG=b"\xff".decode("utf-8", "surrogateescape")) not in (key(), key(LITELLM_LOG="?"))


def _tree(root: Path) -> Path:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__pycache__").mkdir()
    for path in (root / "pkg" / "__init__.py", root / "pkg" / "sub" / "mod.py"):
        path.write_text("x = 1\n")
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    return root / "pkg"


def test_code_stamp_changes_when_a_source_file_is_touched(tmp_path: Path) -> None:
    package = _tree(tmp_path)
    before = place.code_stamp(package)
    assert before == place.code_stamp(package)
    os.utime(package / "sub" / "mod.py", ns=(2_000_000_000, 2_000_000_000))
    assert place.code_stamp(package) != before


def test_code_stamp_changes_when_a_source_file_is_added_or_removed(tmp_path: Path) -> None:
    package = _tree(tmp_path)
    before = place.code_stamp(package)
    added = package / "sub" / "new.py"
    added.write_text("")
    os.utime(added, ns=(500_000_000, 500_000_000))  # older than the rest: only the count tells
    assert place.code_stamp(package) != before
    added.unlink()
    assert place.code_stamp(package) == before
    (package / "__init__.py").unlink()
    assert place.code_stamp(package) != before


def test_code_stamp_ignores_bytecode_and_other_files(tmp_path: Path) -> None:
    package = _tree(tmp_path)
    before = place.code_stamp(package)
    (package / "__pycache__" / "mod.py").write_text("")  # a .py under __pycache__ is not source
    (package / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"")
    (package / "sub" / "notes.txt").write_text("")
    assert place.code_stamp(package) == before


def test_the_installed_code_stamp_counts_agent_tuis_sources() -> None:
    import agent_tui

    sources = [p for p in Path(agent_tui.__file__).parent.rglob("*.py") if "__pycache__" not in p.parts]
    newest, count = place.code_stamp().split(":")
    assert int(count) == len(sources)
    assert int(newest) == max(p.stat().st_mtime_ns for p in sources)


def test_runtime_dir_is_made_private(tmp_path: Path) -> None:
    base = tmp_path / "run"
    path = place.runtime_dir({"XDG_RUNTIME_DIR": str(base)})
    assert path == base / "agent-tui"
    info = path.stat()
    assert info.st_mode & 0o777 == 0o700 and info.st_uid == os.getuid()
    assert place.runtime_dir({"XDG_RUNTIME_DIR": str(base)}) == path  # and found again
    assert place.socket_path("0123456789abcdef", {"XDG_RUNTIME_DIR": str(base)}) == path / "warm-0123456789abcdef.sock"
    assert place.lock_path("0123456789abcdef", {"XDG_RUNTIME_DIR": str(base)}) == path / "warm-0123456789abcdef.lock"


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o710, 0o701, 0o707, 0o770, 0o777])
def test_runtime_dir_refuses_a_directory_others_may_enter(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "agent-tui"
    path.mkdir()
    path.chmod(mode)
    with pytest.raises(place.NoPlace, match="not a private directory"):
        place.runtime_dir({"XDG_RUNTIME_DIR": str(tmp_path)})
    assert path.stat().st_mode & 0o777 == mode  # refused, not repaired


def test_runtime_dir_refuses_a_directory_of_another_user(tmp_path: Path) -> None:
    path = tmp_path / "agent-tui"
    path.mkdir(mode=0o700)
    if os.getuid() == 0:
        os.chown(path, 65534, 65534)
        environ = {"XDG_RUNTIME_DIR": str(tmp_path)}
    else:  # a user cannot give a directory away: take one that exists and is root's
        environ = {"XDG_RUNTIME_DIR": "/"}
        assert Path("/").stat().st_uid != os.getuid()
    with pytest.raises(place.NoPlace):
        place.runtime_dir(environ)


def test_runtime_dir_refuses_a_symlink_to_a_private_directory(tmp_path: Path) -> None:
    """Someone who may write the runtime directory could plant a link to a directory of theirs."""
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    (tmp_path / "agent-tui").symlink_to(target)
    with pytest.raises(place.NoPlace):
        place.runtime_dir({"XDG_RUNTIME_DIR": str(tmp_path)})


def test_runtime_dir_that_cannot_be_made_is_no_place(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(place.NoPlace, match="file"):
        place.runtime_dir({"XDG_RUNTIME_DIR": str(tmp_path / "file")})


@pytest.mark.parametrize(
    ("value", "off"),
    [
        (None, False),
        ("", False),
        ("0", False),
        (" 0 ", False),
        ("  ", False),
        ("1", True),
        ("yes", True),
        ("true", True),
        (" 1", True),
        ("false", True),
    ],
)
def test_switched_off(value: str | None, off: bool) -> None:
    environ = {} if value is None else {place.OFF_ENV: value}
    assert place.switched_off(environ) is off


@pytest.mark.parametrize(
    ("env", "config", "minutes"),
    [
        (None, None, place.DEFAULT_IDLE_MINUTES),
        (None, {}, place.DEFAULT_IDLE_MINUTES),
        (None, {"warm": {}}, place.DEFAULT_IDLE_MINUTES),
        (None, {"warm": "not a table"}, place.DEFAULT_IDLE_MINUTES),
        (None, {"warm": {"idle_minutes": 5}}, 5.0),
        (None, {"warm": {"idle_minutes": 0}}, 0.0),
        (None, {"warm": {"idle_minutes": 0.5}}, 0.5),
        ("12", {"warm": {"idle_minutes": 5}}, 12.0),  # the environment beats the config file
        ("0", {"warm": {"idle_minutes": 5}}, 0.0),
        ("0.01", None, 0.01),
        ("-3", None, 0.0),  # never negative: 0 is off
        ("soon", {"warm": {"idle_minutes": 5}}, place.DEFAULT_IDLE_MINUTES),  # the launch's settings report it
        (None, {"warm": {"idle_minutes": "x"}}, place.DEFAULT_IDLE_MINUTES),
    ],
)
def test_idle_minutes(env: str | None, config: dict | None, minutes: float) -> None:
    environ = {} if env is None else {place.IDLE_ENV: env}
    assert place.idle_minutes(environ, config) == minutes


def test_a_caller_with_this_processs_groups_and_namespaces_fits() -> None:
    assert place.other_context(os.getpid(), os.getgid()) is None


def test_a_caller_with_another_group_does_not_fit() -> None:
    assert place.other_context(os.getpid(), os.getgid() + 1) == f"runs with group {os.getgid() + 1}, not {os.getgid()}"


def test_a_caller_in_another_namespace_does_not_fit() -> None:
    """A sandbox or a container sharing the runtime directory: a child of the warm process would
    run outside it. (``unshare``: a new network namespace; without root, in a new user one too.)"""
    flags = ["-n"] if os.getuid() == 0 else ["-Urn"]
    inside = subprocess.Popen(["unshare", *flags, "sleep", "30"])
    try:
        deadline = time.monotonic() + 10
        while os.readlink(f"/proc/{inside.pid}/ns/net") == os.readlink("/proc/self/ns/net"):
            assert time.monotonic() < deadline, "unshare never entered its namespace"
            time.sleep(0.01)
        other = place.other_context(inside.pid, os.getgid())
        assert other is not None and other.startswith("is in another ") and other.endswith(" namespace"), other
    finally:
        inside.kill()
        inside.wait()


def test_a_caller_that_is_gone_does_not_fit() -> None:
    done = subprocess.Popen(["true"])
    done.wait()  # reaped: its pid names nothing now
    gone = done.pid
    assert place.other_context(gone, os.getgid()) == "cannot be compared (No such file or directory)"
