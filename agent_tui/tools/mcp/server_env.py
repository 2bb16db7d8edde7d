"""The environment a stdio MCP server starts with: the minimum, plus what its config names.

A server is someone else's program: agent-tui's provider keys and other secrets
must not reach it unless the user names them. The SDK starts a server with its
own allowlist (``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``) and
merges what we pass over it; we add the locale, the variables the config lists
in ``env_vars`` and its ``env`` table (which wins).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agent_tui.vocab.mcp_server import McpServerConfig

LOCALE = ("LANG", "LC_ALL", "LC_CTYPE")
"""How text is encoded: harmless to share and needed by servers that read or print non-ASCII."""


def server_environment(config: McpServerConfig, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What goes over the SDK's allowlist for ``config``'s process (never the whole of ``environ``)."""
    source = os.environ if environ is None else environ
    named = {name: source[name] for name in (*LOCALE, *config.env_vars) if name in source}
    return {**named, **config.env}
