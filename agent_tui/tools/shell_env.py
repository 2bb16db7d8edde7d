"""The environment a ``bash`` command gets: the agent's, minus its secrets.

The agent process holds the provider keys LiteLLM needs and agent-tui's own
variables (``AGENT_TUI_API_KEY``, the server token, ...). A command the model
runs needs none of them, and anything it runs (a test suite, a build script,
a package's install hook) could send them anywhere. So they are left out
unless ``[shell] env.include`` names them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from agent_tui.tools.wildcard import wildcard_match

SECRET_NAMES: tuple[str, ...] = (
    "AGENT_TUI_*",
    "ANTHROPIC_*",
    "OPENAI_*",
    "AZURE_OPENAI_*",
    "*_API_KEY",
    "*_APIKEY",
    "*_API_SECRET",
    "*_TOKEN",
    "*_SECRET",
    "*_SECRET_*",
    "*_PASSWORD",
    "*_CREDENTIALS",
    "*_CREDENTIAL",
    "*_ACCESS_KEY",
    "*_ACCESS_KEY_ID",
    "*_MASTER_KEY",
    "*_SALT_KEY",
    "AWS_BEARER_TOKEN_*",
)
"""Names (``*`` wildcards) kept from ``bash``: agent-tui's own variables and the credential
names of LLM providers and clouds as LiteLLM reads them (``OPENAI_API_KEY``,
``AWS_SECRET_ACCESS_KEY``, ``AZURE_AD_TOKEN``, ``GOOGLE_APPLICATION_CREDENTIALS``,
``VERTEXAI_CREDENTIALS``, ``HF_TOKEN``, ``WATSONX_APIKEY``, ...)."""

ENV_NAME = re.compile(r"[A-Za-z_*][A-Za-z0-9_*]*")
"""What ``[shell] env.include`` accepts: a variable name, or a pattern with ``*``."""


def is_secret(name: str) -> bool:
    upper = name.upper()
    return any(wildcard_match(pattern, upper) for pattern in SECRET_NAMES)


def shell_environment(environ: Mapping[str, str], include: Iterable[str] = ()) -> dict[str, str]:
    """``environ`` without its secrets, except those ``include`` names."""
    passed = tuple(include)
    return {
        name: value
        for name, value in environ.items()
        if not is_secret(name) or any(wildcard_match(pattern, name) for pattern in passed)
    }


def command_environment(include: Iterable[str] = ()) -> dict[str, str]:
    """What a shell command starts with: this process's environment without its secrets, and
    pagers that never wait for a keypress (no one is there to press it)."""
    return {**shell_environment(os.environ, include), "PAGER": "cat", "GIT_PAGER": "cat"}
