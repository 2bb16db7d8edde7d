"""``[[hooks]]``: a command run at a point of a session, told what happens as one JSON object on stdin.

``event`` is where it runs (``HookEvent``), ``matcher`` which tools a ``pre_tool`` /
``post_tool`` hook is for (our tool names and ``*`` wildcards; for a ``format = "claude"``
hook, Claude Code's tool names and a regular expression), ``command`` a bash line and
``timeout`` its bound in seconds. A trusted project's ``.claude/settings.json`` hooks arrive
here as ``format = "claude"`` entries (``settings/claude_hooks.py``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_TIMEOUT_S = 60.0


class HookEvent(StrEnum):
    SESSION_START = "session_start"
    USER_PROMPT = "user_prompt"
    PRE_TOOL = "pre_tool"
    POST_TOOL = "post_tool"
    STOP = "stop"
    NOTIFICATION = "notification"


class HookSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    event: HookEvent
    command: str = Field(min_length=1)
    matcher: str | None = None
    """A tool name or wildcard (``pre_tool``, ``post_tool``); None, empty or ``*``: every tool."""
    timeout: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)
    format: Literal["agent-tui", "claude"] = "agent-tui"
    """``claude``: the hook is told Claude Code's tool names and input fields, and its matcher is a
    regular expression over Claude's tool names."""
