"""``/init``: the prompt that has the agent write or improve the project's AGENTS.md.

It goes through the normal prompt flow (a user prompt, the agent's tools, an ``apply_patch``
the user approves), so it is in the log and can be rewound like any other turn; only its text
is ours, kept as a Markdown file beside the base prompts."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def init_prompt() -> str:
    return (
        resources.files("agent_tui.core.request").joinpath("prompt_texts/init.md").read_text(encoding="utf-8").strip()
    )
