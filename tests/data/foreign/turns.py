"""What the fake model answers in each fixture scenario (``generate.py --agent A --scenario S``).

A turn answers ``after`` a tool result (its call id) or a user text holding that
substring; it may carry ``thinking``, ``text`` and one ``tool`` call (with its ``id``).
The ``base`` scenarios made ``claude_code/``, ``codex/`` and ``opencode/`` (Gemini CLI's
``gemini/`` is ``gemini_wire.turns``); ``subagent`` made
``claude_code_subagent/``, ``failing`` made ``codex_failing/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def opening(shell: str, *, read: dict[str, Any], edit: dict[str, Any]) -> list[dict[str, Any]]:
    """The turns each base scenario but Codex's opens with, in the agent's own tools: list the files (its
    shell tool named ``shell``), read main.py (the call ``read``), change it (the call ``edit``)."""
    return [
        {
            "after": "FIXTURE-TASK",
            "id": "call_ls01",
            "thinking": "Look at the files first.",
            "text": "I'll list the files.",
            "tool": {"name": shell, "input": {"command": "ls", "description": "List files"}},
        },
        {"after": "call_ls01", "id": "call_read01", "text": "Reading main.py before editing it.", "tool": read},
        {"after": "call_read01", "id": "call_edit01", "tool": edit},
    ]


def claude_turns(proj: Path) -> list[dict[str, Any]]:
    main = str(proj / "main.py")
    return [
        *opening(
            "Bash",
            read={"name": "Read", "input": {"file_path": main}},
            edit={
                "name": "Edit",
                "input": {
                    "file_path": main,
                    "old_string": "print('hello')",
                    "new_string": "print('hello, world')",
                    "replace_all": False,
                },
            },
        ),
        {
            "after": "call_edit01",
            "id": "call_img01",
            "tool": {"name": "Read", "input": {"file_path": str(proj / "pic.png")}},
        },
        {
            "after": "call_img01",
            "id": "call_todo01",
            "tool": {
                "name": "TodoWrite",
                "input": {"todos": [{"content": "Say hello", "status": "completed", "activeForm": "Saying hello"}]},
            },
        },
        {"after": "call_todo01", "text": "Done: main.py now prints hello, world. The picture is a single pixel."},
        {"after": "ANOTHER-TASK", "text": "Second answer after resuming."},
        {
            "after": "summary",
            "summary": True,
            "text": "<summary>\n1. Primary Request: edit main.py to print hello, world.\n2. Work done: listed files, edited main.py, viewed pic.png.\n</summary>",
        },
    ]


def codex_turns(proj: Path) -> list[dict[str, Any]]:
    patch = "*** Begin Patch\n*** Update File: main.py\n@@\n-    print('hello')\n+    print('hello, world')\n*** End Patch\n"
    return [
        {
            "after": "FIXTURE-TASK",
            "id": "call_ls01",
            "thinking": "Look at the files first.",
            "text": "I'll list the files.",
            "tool": {"name": "exec_command", "input": {"cmd": "ls", "workdir": str(proj)}},
        },
        {
            "after": "call_ls01",
            "id": "call_edit01",
            "tool": {
                "name": "exec_command",
                "input": {"cmd": f"apply_patch <<'PATCH'\n{patch}PATCH\n", "workdir": str(proj)},
            },
        },
        {
            "after": "call_edit01",
            "id": "call_img01",
            "tool": {"name": "view_image", "input": {"path": str(proj / "pic.png")}},
        },
        {
            "after": "call_img01",
            "text": "Done: main.py now prints hello, world. The picture is a single pixel.",
            "input_tokens": 9000,
        },
        {"after": "ANOTHER-TASK", "text": "Second answer after resuming."},
        {"after": "summary", "summary": True, "text": "Summary: edited main.py to print hello, world; viewed pic.png."},
    ]


def claude_subagent_turns(proj: Path) -> list[dict[str, Any]]:
    """Claude Code's Agent tool: the subagent runs ``ls`` in its own conversation and answers."""
    return [
        {
            "after": "SUBAGENT-TASK",
            "id": "call_agent01",
            "text": "I'll ask a subagent to look.",
            "tool": {
                "name": "Agent",
                "input": {
                    "description": "List project files",
                    "prompt": "SUBAGENT-PROMPT: list the files in the project and report them.",
                    "subagent_type": "general-purpose",
                },
            },
        },
        {
            "after": "SUBAGENT-PROMPT",
            "id": "call_subls01",
            "thinking": "The subagent lists the files.",
            "tool": {"name": "Bash", "input": {"command": "ls", "description": "List files"}},
        },
        {"after": "call_subls01", "text": "SUBAGENT-RESULT: the project holds main.py and pic.png."},
        {"after": "call_agent01", "text": "The subagent found main.py and pic.png."},
    ]


def codex_failing_turns(proj: Path) -> list[dict[str, Any]]:
    """A shell command that fails (exit code 2), then one that succeeds, so both kinds are in one rollout."""
    return [
        {
            "after": "FAILING-TASK",
            "id": "call_fail01",
            "text": "Listing a file that is not there.",
            "tool": {"name": "exec_command", "input": {"cmd": "ls missing-file", "workdir": str(proj)}},
        },
        {
            "after": "call_fail01",
            "id": "call_ok01",
            "tool": {"name": "exec_command", "input": {"cmd": "ls main.py", "workdir": str(proj)}},
        },
        {"after": "call_ok01", "text": "missing-file is not there; main.py is."},
    ]


def opencode_turns(proj: Path) -> list[dict[str, Any]]:
    """opencode asks its small model for a title first (no tools); its Chat Completions carries a tool
    result's image as a user message after the result."""
    main = str(proj / "main.py")
    return [
        {"after": "FIXTURE-TASK", "title": True, "text": "Edit main.py to print hello, world"},
        *opening(
            "bash",
            read={"name": "read", "input": {"filePath": main}},
            edit={
                "name": "edit",
                "input": {"filePath": main, "oldString": "print('hello')", "newString": "print('hello, world')"},
            },
        ),
        {
            "after": "call_edit01",
            "id": "call_write01",
            "tool": {"name": "write", "input": {"filePath": str(proj / "NOTES.md"), "content": "# Notes\nhello\n"}},
        },
        {
            "after": "call_write01",
            "id": "call_glob01",
            "tool": {"name": "glob", "input": {"pattern": "*.py"}},
        },
        {
            "after": "call_glob01",
            "id": "call_img01",
            "tool": {"name": "read", "input": {"filePath": str(proj / "pic.png")}},
        },
        {  # Chat Completions has no image in a tool message: opencode sends it as the user's, after the result
            "after": "Attached media from tool result",
            "text": "Done: main.py now prints hello, world. The picture is a single pixel.",
            "input_tokens": 9000,
        },
        {"after": "summary", "summary": True, "text": "Summary: edited main.py to print hello, world; wrote NOTES.md."},
        {"after": "ANOTHER-TASK", "text": "Second answer after resuming."},
    ]


SCENARIOS = {
    ("claude", "base"): claude_turns,
    ("claude", "subagent"): claude_subagent_turns,
    ("codex", "base"): codex_turns,
    ("codex", "failing"): codex_failing_turns,
    ("opencode", "base"): opencode_turns,
}
