"""What a hook is told, in Claude Code's words, and which tool calls a hook's matcher takes.

One JSON object on stdin with Claude Code's field names: ``session_id``, ``cwd``,
``hook_event_name`` (``SessionStart``, ``UserPromptSubmit``, ``PreToolUse``, ``PostToolUse``,
``Stop``, ``Notification``), ``tool_name``, ``tool_input``, ``tool_response``, ``prompt``,
``message``, ``stop_hook_active``, ``source``; no ``transcript_path`` (agent-tui keeps no
transcript file). A ``format = "claude"`` hook (every hook from ``.claude/settings.json``) is
told Claude's tool names (``bash`` -> ``Bash``, ``apply_patch`` -> ``Edit``, ``read`` -> ``Read``)
and the input fields Claude's scripts read (``file_path``; ``timeout`` in ms for ``Bash``) beside
ours, so an existing script works unchanged; an agent-tui hook is told our names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_tui.core.settings.hook_settings import HookEvent, HookSettings
from agent_tui.tools.tool import ToolOutcome
from agent_tui.tools.wildcard import wildcard_match

CLAUDE_EVENT_NAMES = {
    HookEvent.SESSION_START: "SessionStart",
    HookEvent.USER_PROMPT: "UserPromptSubmit",
    HookEvent.PRE_TOOL: "PreToolUse",
    HookEvent.POST_TOOL: "PostToolUse",
    HookEvent.STOP: "Stop",
    HookEvent.NOTIFICATION: "Notification",
}
CLAUDE_TOOL_NAMES: dict[str, tuple[str, ...]] = {
    "bash": ("Bash",),
    "apply_patch": ("Edit", "Write", "MultiEdit"),
    "read": ("Read",),
    "todo": ("TodoWrite",),
    "task": ("Task",),
    "skill": ("Skill",),
}
"""Our tool -> Claude's names for it; the first is the one a Claude-format hook is told."""


def claude_tool_name(tool: str) -> str:
    return CLAUDE_TOOL_NAMES.get(tool, (tool,))[0]


def matches(hook: HookSettings, tool: str | None) -> bool:
    """Does the hook run for this tool (or another event's subject)? None matches every matcher."""
    if tool is None or not hook.matcher or hook.matcher == "*":
        return True
    if hook.format != "claude":
        return wildcard_match(hook.matcher, tool)
    names = CLAUDE_TOOL_NAMES.get(tool, (tool,))
    try:
        pattern = re.compile(hook.matcher)
    except re.error:
        return hook.matcher in names
    return any(pattern.fullmatch(name) for name in names)


def _first_patch_path(patch: str) -> str | None:
    from agent_tui.tools.apply_patch.parser import PatchError, parse_patch

    try:
        operations = parse_patch(patch)
    except PatchError:
        return None
    return next((op.path for op in operations), None)


def claude_tool_input(tool: str, tool_input: Mapping[str, Any], location: Path) -> dict[str, Any]:
    """Our input plus the fields Claude's scripts read for the same tool."""
    out = dict(tool_input)
    path = tool_input.get("path") if tool == "read" else None
    if tool == "apply_patch" and isinstance(tool_input.get("patch"), str):
        path = _first_patch_path(tool_input["patch"])
    if isinstance(path, str):
        out["file_path"] = str(location / path)
    if tool == "bash" and tool_input.get("timeout_ms") is not None:
        out["timeout"] = tool_input["timeout_ms"]
    return out


def tool_response(outcome: ToolOutcome) -> dict[str, Any]:
    """A settled call as a hook reads it: the output's text and data, or the error."""
    if outcome.output is not None:
        text = outcome.output.text
        return {"success": True, "output": text, "stdout": text, "data": outcome.output.data}
    error = outcome.error
    return {"success": False, "error": error.message if error else "", "error_type": error.type if error else ""}


def payload(hook: HookSettings, event: HookEvent, base: Mapping[str, Any], location: Path) -> dict[str, Any]:
    """The object on the hook's stdin: ``base`` (session, cwd, the event's own fields) in the hook's naming."""
    out = {**base, "hook_event_name": CLAUDE_EVENT_NAMES[event]}
    tool = base.get("tool_name")
    if hook.format == "claude" and isinstance(tool, str):
        out["tool_name"] = claude_tool_name(tool)
        if isinstance(base.get("tool_input"), Mapping):
            out["tool_input"] = claude_tool_input(tool, base["tool_input"], location)
    return out
