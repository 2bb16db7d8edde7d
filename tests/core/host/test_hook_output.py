"""A hook's JSON answer on stdout, read as Claude Code reads it; anything else stays plain text."""

from __future__ import annotations

import json

import pytest

from agent_tui.core.host.hook_output import HookOutput, read_output


@pytest.mark.parametrize(
    ("answer", "read"),
    [
        ({"decision": "block", "reason": "no rm"}, HookOutput(blocked="no rm")),
        ({"decision": "block"}, HookOutput(blocked="blocked by a hook (it gave no reason)")),
        (
            {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "use make"}},
            HookOutput(blocked="use make"),
        ),
        ({"hookSpecificOutput": {"permissionDecision": "allow"}}, HookOutput()),  # never answers an ask
        ({"decision": "approve", "reason": "fine"}, HookOutput()),
        ({"hookSpecificOutput": {"additionalContext": "Branch x"}}, HookOutput(context="Branch x")),
        ({"systemMessage": "linted 3 files", "suppressOutput": True}, HookOutput(message="linted 3 files")),
        ({"continue": False, "stopReason": "stop"}, HookOutput()),
    ],
)
def test_claudes_keys_are_read(answer: dict, read: HookOutput) -> None:
    assert read_output(json.dumps(answer) + "\n") == read


@pytest.mark.parametrize("stdout", ["", "Branch: x", '{"ticket": "ABC-1"}', "{not json", "[1, 2]", '"text"'])
def test_anything_else_is_plain_text(stdout: str) -> None:
    assert read_output(stdout) is None
