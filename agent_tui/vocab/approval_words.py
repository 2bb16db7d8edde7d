"""What a saved approval lets through, in words: the permission panel's "always" key, ``/permissions``
and ``agent-tui permissions list`` say it the same way, so the user reads before saving exactly what
they will later see listed."""

from __future__ import annotations

from collections.abc import Sequence


def describe_approval(action: str, pattern: str) -> str:
    match action:
        case "bash":
            return f"commands matching `{pattern}`"
        case "edit":
            return "edits to any file" if pattern == "*" else f"edits to {pattern}"
        case "read":
            return "reading any file" if pattern == "*" else f"reading {pattern}"
        case "mcp":
            return f"MCP tool {pattern}"
        case "external_directory":
            return f"working outside the project in {pattern}"
        case "outside_sandbox":
            return f"commands matching `{pattern}` outside the sandbox"
        case _:
            return f"{action} {pattern}"


def describe_approvals(action: str, patterns: Sequence[str]) -> str:
    """Several patterns of one action: ``commands matching `git status *`, `make *```."""
    if not patterns:
        return f"this {action}"
    if action in ("bash", "outside_sandbox"):
        listed = ", ".join(f"`{p}`" for p in patterns)
        suffix = " outside the sandbox" if action == "outside_sandbox" else ""
        return f"commands matching {listed}{suffix}"
    first, *rest = [describe_approval(action, p) for p in patterns]
    return ", ".join([first, *(r.split(" ", 2)[-1] if action in ("edit", "read") else r for r in rest)])
