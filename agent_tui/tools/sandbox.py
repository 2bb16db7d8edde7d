"""The sandbox a shell command runs in: what it may write, whether it may reach the network.

Three policies (``[sandbox] mode``):

- ``read-only``: nothing is writable but a private ``/tmp`` that vanishes with the command.
- ``workspace-write`` (the default): the project root, the system temp dir and the configured
  ``writable_roots`` are writable; everything else is read-only, and inside the project
  ``.git/hooks`` and ``.agent-tui`` stay read-only too (a command must not plant a hook git will
  run later, or rewrite the agent's own project config).
- ``full-access``: no sandbox.

Network is off inside the sandbox unless ``network = true``. On Linux the mechanism is
bubblewrap (``bwrap``: mount and network namespaces, read-only binds, ``--die-with-parent``);
the command stays the leader of the process group bash stops on an interrupt. Where no
mechanism exists the command runs as before, under the ask-first permission rules, and the
caller says so once (:func:`unavailable_reason`): never a silent fallback presented as safe.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path


class SandboxMode(StrEnum):
    READ_ONLY = "read-only"
    WORKSPACE_WRITE = "workspace-write"
    FULL_ACCESS = "full-access"


_BREADTH = (SandboxMode.READ_ONLY, SandboxMode.WORKSPACE_WRITE, SandboxMode.FULL_ACCESS)


def narrower(a: SandboxMode, b: SandboxMode) -> SandboxMode:
    """The stricter of two modes: layers (an agent, an untrusted project) narrow, never widen."""
    return min(a, b, key=_BREADTH.index)


PROTECTED_IN_WORKSPACE = (".git/hooks", ".agent-tui")
"""Inside a writable project, these stay read-only."""


@dataclass(frozen=True)
class SandboxPolicy:
    mode: SandboxMode = SandboxMode.WORKSPACE_WRITE
    network: bool = False
    writable_roots: tuple[Path, ...] = ()
    """The project root first, then the configured ``writable_roots`` (absolute)."""
    read_only: tuple[Path, ...] = field(default=())
    """Paths kept read-only inside the writable roots (the agent's own config folder)."""

    @property
    def confines(self) -> bool:
        return self.mode is not SandboxMode.FULL_ACCESS


def bwrap_path() -> str | None:
    """The bubblewrap binary, if this is Linux and one is on ``PATH``."""
    if not sys.platform.startswith("linux"):
        return None
    return shutil.which("bwrap")


INSTALL_BWRAP = "install it, e.g. `apt install bubblewrap`"


def missing_mechanism() -> str | None:
    """What this machine lacks to sandbox anything (a phrase), or None: each caller says what follows
    from it (commands run after asking; a server that asked for the sandbox is not started)."""
    if not sys.platform.startswith("linux"):
        return f"no sandbox mechanism on {sys.platform} yet"
    if bwrap_path() is None:
        return "bubblewrap (bwrap) is not installed"
    return None


def unavailable_reason() -> str | None:
    """Why commands cannot be sandboxed here (one sentence), or None when they can."""
    missing = missing_mechanism()
    if missing is None:
        return None
    fix = f" ({INSTALL_BWRAP}, to sandbox them)" if bwrap_path() is None and sys.platform.startswith("linux") else ""
    return f"{missing}: commands run with your full access, after asking{fix}"


def confines_here(policy: SandboxPolicy | None) -> bool:
    """Whether a command under ``policy`` runs confined on this machine (a mechanism exists)."""
    return policy is not None and policy.confines and bwrap_path() is not None


def _existing(paths: Sequence[Path]) -> list[Path]:
    return [path for path in dict.fromkeys(Path(os.path.realpath(p)) for p in paths) if path.exists()]


def sandboxed_argv(policy: SandboxPolicy, argv: Sequence[str], workdir: Path, bwrap: str) -> list[str]:
    """``argv`` wrapped in bubblewrap under ``policy`` (which must confine)."""
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    if policy.mode is SandboxMode.WORKSPACE_WRITE:
        writable = _existing([*policy.writable_roots, Path(tempfile.gettempdir())])
        for root in writable:
            args += ["--bind", str(root), str(root)]
        protected = [root / name for root in writable[:1] for name in PROTECTED_IN_WORKSPACE]
        for path in _existing([*protected, *policy.read_only]):
            if any(path == root or root in path.parents for root in writable):
                args += ["--ro-bind", str(path), str(path)]
    else:
        temp = Path(os.path.realpath(tempfile.gettempdir()))
        args += ["--tmpfs", str(temp)]
        for path in _existing([*policy.writable_roots[:1], workdir]):  # a project under the temp dir stays seen
            if temp in path.parents:
                args += ["--ro-bind", str(path), str(path)]
    if not policy.network:
        args.append("--unshare-net")
    args += ["--die-with-parent", "--chdir", str(workdir), "--", *argv]
    return args
