"""``agent-tui sandbox -- CMD``: a command line as the agent's ``bash`` would run it here.

The same policy (``[sandbox]``, narrowed by the agent's own mode), the same
secret-free environment and the same ``bash -c`` line, so a person can check
what a policy allows before an agent meets it. Where commands cannot be
confined, :func:`sandboxed_command` says why instead of running them unconfined.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.settings import paths
from agent_tui.core.settings.config import Settings
from agent_tui.tools.bash import shell_argv
from agent_tui.tools.sandbox import PROTECTED_IN_WORKSPACE, SandboxMode, SandboxPolicy, bwrap_path, unavailable_reason
from agent_tui.tools.shell_env import command_environment


@dataclass(frozen=True)
class SandboxedCommand:
    argv: list[str]
    env: dict[str, str]
    policy: str
    """One line saying what the command may do."""
    refusal: str | None = None
    """Why it cannot run confined here (then ``argv`` is empty)."""


def describe(policy: SandboxPolicy) -> str:
    network = "network on" if policy.network else "network off"
    match policy.mode:
        case SandboxMode.FULL_ACCESS:
            return "full-access: not confined (your own access)"
        case SandboxMode.READ_ONLY:
            return f"read-only: writes go nowhere but a private {tempfile.gettempdir()}; {network}"
        case _:
            writable = ", ".join(str(p) for p in (*policy.writable_roots, Path(tempfile.gettempdir())))
            kept = ", ".join(PROTECTED_IN_WORKSPACE)
            return f"workspace-write: writable {writable} (but {kept}); {network}"


def sandboxed_command(location: Path, settings: Settings, agent: str, words: Sequence[str]) -> SandboxedCommand:
    """``words`` (one shell line, or a command and its arguments) under ``agent``'s policy at ``location``."""
    line = words[0] if len(words) == 1 else shlex.join(words)
    policy = settings.command_sandbox(paths.project_root(location), agent)
    env = command_environment(settings.shell.env.include)
    if policy.confines and bwrap_path() is None:
        return SandboxedCommand([], env, describe(policy), refusal=unavailable_reason())
    return SandboxedCommand(shell_argv(line, location, policy if policy.confines else None), env, describe(policy))
