"""An ``apply_patch`` patch as a coloured diff, coloured by the theme's diff variables."""

from __future__ import annotations

from collections.abc import Mapping

from rich.style import Style
from rich.text import Text

from agent_tui.vocab.terminal_text import inert

MAX_DIFF_LINES = 400


def render_patch(patch: str, variables: Mapping[str, str]) -> Text:
    added = Style(color=variables.get("diff-added"), bgcolor=variables.get("diff-added-background"))
    removed = Style(color=variables.get("diff-removed"), bgcolor=variables.get("diff-removed-background"))
    hunk = Style(color=variables.get("diff-hunk"), bold=True)
    out = Text()
    lines = inert(patch).splitlines()  # the model wrote it: no control sequence reaches the terminal
    for line in lines[:MAX_DIFF_LINES]:
        if line in ("*** Begin Patch", "*** End Patch"):
            continue
        if line.startswith("*** "):
            out.append(line.removeprefix("*** ") + "\n", style="bold")
        elif line.startswith("@@"):
            out.append(line + "\n", style=hunk)
        elif line.startswith("+"):
            out.append(line + "\n", style=added)
        elif line.startswith("-"):
            out.append(line + "\n", style=removed)
        else:
            out.append(line + "\n")
    if len(lines) > MAX_DIFF_LINES:
        out.append(f"… {len(lines) - MAX_DIFF_LINES} more lines\n", style="dim")
    out.rstrip()
    return out
