"""What a hook is told and which calls its matcher takes: our names, or Claude Code's for a Claude-format hook."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.host.hook_payload import matches, payload
from agent_tui.core.settings.hook_settings import HookEvent, HookSettings


def _hook(matcher: str | None, format: str = "agent-tui") -> HookSettings:
    return HookSettings(event=HookEvent.PRE_TOOL, command="x", matcher=matcher, format=format)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("matcher", "format", "tool", "expected"),
    [
        (None, "agent-tui", "bash", True),
        ("*", "agent-tui", "read", True),
        ("bash", "agent-tui", "bash", True),
        ("bash", "agent-tui", "read", False),
        ("mcp__*", "agent-tui", "mcp__github__search", True),
        ("Bash", "claude", "bash", True),
        ("Bash", "claude", "read", False),
        ("Edit|Write", "claude", "apply_patch", True),
        ("MultiEdit", "claude", "apply_patch", True),
        ("Read", "claude", "apply_patch", False),
        ("", "claude", "todo", True),
        (".*", "claude", "read", True),
        ("mcp__github__.*", "claude", "mcp__github__search", True),
        ("Bash(", "claude", "bash", False),  # not a regular expression: taken literally
    ],
)
def test_matchers(matcher: str | None, format: str, tool: str, expected: bool) -> None:
    assert matches(_hook(matcher, format), tool) is expected


def test_a_claude_format_hook_is_told_claudes_tool_names_and_fields(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n*** End Patch"
    base = {"session_id": "ses_1", "cwd": str(tmp_path), "tool_name": "apply_patch", "tool_input": {"patch": patch}}
    told = payload(_hook(None, "claude"), HookEvent.PRE_TOOL, base, tmp_path)
    assert told["tool_name"] == "Edit" and told["hook_event_name"] == "PreToolUse"
    assert told["tool_input"] == {"patch": patch, "file_path": str(tmp_path / "src/a.py")}
    bash = {**base, "tool_name": "bash", "tool_input": {"command": "make", "timeout_ms": 5000}}
    assert payload(_hook(None, "claude"), HookEvent.PRE_TOOL, bash, tmp_path)["tool_input"] == {
        "command": "make",
        "timeout_ms": 5000,
        "timeout": 5000,
    }
    ours = payload(_hook(None), HookEvent.PRE_TOOL, base, tmp_path)
    assert ours["tool_name"] == "apply_patch" and ours["tool_input"] == {"patch": patch}
