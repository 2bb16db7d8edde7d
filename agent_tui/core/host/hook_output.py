"""What a hook that exits 0 says in JSON on stdout, read as Claude Code reads it (a subset).

A stdout that is one JSON object with any of Claude's keys is read, not passed on as text:

- ``decision: "block"`` with ``reason``, or ``hookSpecificOutput.permissionDecision: "deny"`` with
  ``permissionDecisionReason``: a block, as exit 2 with that reason on stderr;
- ``hookSpecificOutput.additionalContext``: the context for the model (``session_start``,
  ``user_prompt``), in place of the raw stdout;
- ``systemMessage``: a line for the user, kept as the run's message.

``permissionDecision: "allow"`` / ``"ask"`` and ``decision: "approve"`` change nothing (a hook
never answers a permission ask for the user), nor do ``continue``, ``stopReason`` and
``suppressOutput``. Any other stdout is plain text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

CLAUDE_KEYS = frozenset(
    {"decision", "reason", "hookSpecificOutput", "continue", "stopReason", "suppressOutput", "systemMessage"}
)


@dataclass(frozen=True)
class HookOutput:
    blocked: str | None = None
    context: str | None = None
    message: str | None = None


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def read_output(stdout: str) -> HookOutput | None:
    """The JSON answer on a hook's stdout, or None when it is plain text."""
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not CLAUDE_KEYS & data.keys():
        return None
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    blocked = None
    if data.get("decision") == "block":
        blocked = _text(data.get("reason")) or "blocked by a hook (it gave no reason)"
    elif specific.get("permissionDecision") == "deny":
        blocked = _text(specific.get("permissionDecisionReason")) or "denied by a hook (it gave no reason)"
    return HookOutput(blocked, _text(specific.get("additionalContext")), _text(data.get("systemMessage")))
