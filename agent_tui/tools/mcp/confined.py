"""A stdio MCP server's command line, wrapped in the command sandbox when its config asks for it.

A server is someone else's program, started the moment agent-tui opens and
kept running; ``sandbox = true`` (or ``[sandbox] mcp_servers = true``) runs it
under the same bubblewrap policy as ``bash`` (``tools.sandbox``). Unlike
``bash``, which falls back to asking first, a server that asked for the sandbox
is never started unconfined where no mechanism exists: it fails to start with
the reason, shown the way any other server failure is.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agent_tui.tools import sandbox
from agent_tui.tools.sandbox import SandboxPolicy, bwrap_path, sandboxed_argv


class SandboxUnavailable(Exception):
    """The server asked for the sandbox and this machine has none; the message says why."""


def missing_mechanism() -> str | None:
    """Why a server cannot be sandboxed here (one sentence), or None when it can."""
    missing = sandbox.missing_mechanism()
    if missing is None:
        return None
    if not sys.platform.startswith("linux"):
        return f"sandbox requested but there is {missing}"
    return f"sandbox requested but {missing} ({sandbox.INSTALL_BWRAP}, or turn the server's sandbox off)"


def server_argv(argv: Sequence[str], workdir: Path, policy: SandboxPolicy | None) -> list[str]:
    """``argv`` as it is started: unchanged without a policy, else inside bubblewrap at ``workdir``;
    raises ``SandboxUnavailable`` rather than start it unconfined."""
    if policy is None or not policy.confines:
        return list(argv)
    bwrap = bwrap_path()
    reason = missing_mechanism()
    if reason is not None or bwrap is None:
        raise SandboxUnavailable(reason or "sandbox requested but bubblewrap (bwrap) is not installed")
    return sandboxed_argv(policy, argv, workdir, bwrap)
