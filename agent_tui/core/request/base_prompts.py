"""The base system prompt of a step: the agent's own prompt, or the baseline of the model's family.

The texts are Markdown files in ``prompt_texts/`` (package data), one per
family, with two shared fragments spliced in: ``{{apply_patch}}`` (the patch
grammar, one text so no family teaches it differently) and ``{{plan}}`` (keep
the plan in the ``todo`` tool when the agent is offered one, else in the
answer). The result depends only on the model name, the agent's prompt and
the agent's tool names, never on time or history, so every step of a
session sends the same bytes and the provider's prompt cache holds.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache
from importlib import resources

from agent_tui.core.request.families import Family, family_of
from agent_tui.core.settings.agents import PLAN_AGENT

_PACKAGE = __name__.rpartition(".")[0]

TODO_TOOL = "todo"
"""The plan tool's name; with it offered, the prompt says to keep the plan there."""
AGENT_TEXTS = {PLAN_AGENT: "plan"}
"""A built-in agent's own text (in ``prompt_texts/``), added after the base prompt, its own or the family's."""


@cache
def prompt_text(name: str) -> str:
    """One file of ``prompt_texts/`` (``anthropic``, ``_apply_patch``, …), read once per process."""
    return resources.files(_PACKAGE).joinpath("prompt_texts", f"{name}.md").read_text(encoding="utf-8").strip()


def family_prompt(family: Family, has_todo: bool = False) -> str:
    """A family's baseline with the shared fragments spliced in."""
    plan = prompt_text("_plan_todo" if has_todo else "_plan_answer")
    return prompt_text(family.value).replace("{{apply_patch}}", prompt_text("_apply_patch")).replace("{{plan}}", plan)


def base_prompt(
    model: str, agent_prompt: str | None = None, tools: Collection[str] = (), agent: str | None = None
) -> str:
    """What a step sends first: the agent's own prompt when it has one, else its model family's
    baseline; then a built-in agent's own text (the plan agent's).

    ``tools`` are the names the agent is offered (not only this step's: the final
    step offers none, and its prompt must still match the others')."""
    text = agent_prompt or family_prompt(family_of(model), TODO_TOOL in tools)
    own = AGENT_TEXTS.get(agent or "")
    return f"{text}\n\n{prompt_text(own)}" if own else text
