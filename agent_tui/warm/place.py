"""Which warm process fits a launch, and where it listens.

A warm process may only serve launches that a fresh process would start the
same way: the same agent-tui code, the same Python, and the same environment
wherever it is read at import time (LiteLLM's, Textual's and Python's own
variables, proxies and certificates). Those go into the key, and the key into
the socket's name, so a launch can only reach a process that fits it.

``AGENT_TUI_*`` variables are in the key too, except the ones agent-tui reads
only when a launch runs (after the fork): :data:`READ_PER_LAUNCH`.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

import agent_tui

OFF_ENV = "AGENT_TUI_NO_WARM"
IDLE_ENV = "AGENT_TUI_WARM__IDLE_MINUTES"
DEFAULT_IDLE_MINUTES = 30.0

READ_PER_LAUNCH = frozenset(
    {
        "AGENT_TUI_HOME",
        "AGENT_TUI_MODEL",
        "AGENT_TUI_API_BASE",
        "AGENT_TUI_API_KEY",
        "AGENT_TUI_SERVER_TOKEN",
        "AGENT_TUI_DISABLE_PROJECT_CONFIG",
        "AGENT_TUI_TEST_KILL_AFTER_COMMIT",
        "AGENT_TUI_TEST_TOOLS",
        "AGENT_TUI_TEST_MARKS",
    }
)
"""Read by the launch itself, never at import: a warm process serves any value of them
(``tests/warm/test_launch.py`` launches with values its warm process was not started with)."""

_KEY_PREFIXES = ("AGENT_TUI_", "LITELLM_", "TEXTUAL_", "PYTHON", "LC_", "SSL_", "OPENSSL_")
_KEY_NAMES = frozenset(
    {
        "LANG",
        "NO_COLOR",
        "FORCE_COLOR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NO_PROXY",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
    }
)


def _blake2b(digest_size: int):  # type: ignore[no-untyped-def]
    """hashlib's BLAKE2b without hashlib's import of OpenSSL (~4 ms on every launch)."""
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b
    return blake2b(digest_size=digest_size)


def in_key(name: str) -> bool:
    upper = name.upper()
    if name in READ_PER_LAUNCH:
        return False
    return upper in _KEY_NAMES or upper.startswith(_KEY_PREFIXES)


def code_stamp(package: Path | None = None) -> str:
    """The newest modification time and the count of agent-tui's source files.

    The version alone misses an edited checkout (``pip install -e``); ~250 ``stat``
    calls cost well under a millisecond."""
    root = Path(agent_tui.__file__).parent if package is None else package
    newest, count, pending = 0, 0, [str(root)]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append(entry.path)
                elif entry.name.endswith(".py"):
                    newest = max(newest, entry.stat().st_mtime_ns)
                    count += 1
    return f"{newest}:{count}"


def launch_key(environ: Mapping[str, str] | None = None, stamp: str | None = None) -> str:
    """Sixteen hex digits naming the warm process that may serve a launch with this environment."""
    environ = os.environ if environ is None else environ
    digest = _blake2b(digest_size=8)
    python = (sys.prefix, os.path.realpath(sys.executable), sys.version)  # bin/python and bin/python3 are one
    for part in (agent_tui.__version__, stamp or code_stamp(), *python):
        digest.update(part.encode() + b"\0")
    for name in sorted(n for n in environ if in_key(n)):
        digest.update(f"{name}={environ[name]}".encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


class NoPlace(Exception):
    """No private runtime directory can be had: the launch runs in-process."""


def runtime_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_RUNTIME_DIR/agent-tui`` (else ``/tmp/agent-tui-UID``), made 0700 and checked to be ours."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_RUNTIME_DIR")
    path = Path(base) / "agent-tui" if base else Path("/tmp") / f"agent-tui-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, parents=bool(base), exist_ok=True)
        info = path.lstat()
    except OSError as error:
        raise NoPlace(f"{path}: {error.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise NoPlace(f"{path} is not a private directory of this user")
    return path


def socket_path(key: str, environ: Mapping[str, str] | None = None) -> Path:
    return runtime_dir(environ) / f"warm-{key}.sock"


def lock_path(key: str, environ: Mapping[str, str] | None = None) -> Path:
    return runtime_dir(environ) / f"warm-{key}.lock"


def idle_minutes(environ: Mapping[str, str] | None = None, config: Mapping[str, object] | None = None) -> float:
    """``[warm] idle_minutes`` (the environment's ``AGENT_TUI_WARM__IDLE_MINUTES`` first); 0 is off."""
    environ = os.environ if environ is None else environ
    raw: object = environ.get(IDLE_ENV)
    if raw is None and config is not None:
        warm = config.get("warm")
        raw = warm.get("idle_minutes") if isinstance(warm, Mapping) else None
    if raw is None:
        return DEFAULT_IDLE_MINUTES
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return DEFAULT_IDLE_MINUTES  # validated, with a clear error, by the launch's own settings
    if value != value or value in (float("inf"), float("-inf")):
        return DEFAULT_IDLE_MINUTES
    return max(value, 0.0)


LIMITS = (
    "RLIMIT_NOFILE",
    "RLIMIT_CORE",
    "RLIMIT_AS",
    "RLIMIT_DATA",
    "RLIMIT_STACK",
    "RLIMIT_NPROC",
    "RLIMIT_CPU",
    "RLIMIT_FSIZE",
    "RLIMIT_MEMLOCK",
)
"""Resource limits a launch takes from its caller (``ulimit``), as a fresh process inherits them."""


def limits() -> dict[str, list[int]]:
    import resource

    return {name: list(resource.getrlimit(getattr(resource, name))) for name in LIMITS if hasattr(resource, name)}


def switched_off(environ: Mapping[str, str] | None = None) -> bool:
    environ = os.environ if environ is None else environ
    return environ.get(OFF_ENV, "").strip() not in ("", "0")


NAMESPACES = ("mnt", "pid", "net", "ipc", "uts", "user")


def other_context(pid: int, gid: int) -> str | None:
    """What a child of this process could not take on from the caller ``pid`` (None: nothing):
    its group, its supplementary groups (one joined since this process started) or a namespace
    (a sandbox or a container sharing the runtime directory). The launch then runs in-process.
    The cgroup is not compared: terminals put each window in a scope of its own, and no launch
    from another window would ever be warm."""
    if gid != os.getgid():
        return f"runs with group {gid}, not {os.getgid()}"
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            groups = next((line.split()[1:] for line in status if line.startswith("Groups:")), [])
        if {int(g) for g in groups} != set(os.getgroups()):
            return "has other supplementary groups"
        for name in NAMESPACES:
            if os.readlink(f"/proc/{pid}/ns/{name}") != os.readlink(f"/proc/self/ns/{name}"):
                return f"is in another {name} namespace"
    except OSError as error:
        return f"cannot be compared ({error.strerror})"
    return None
