"""The next step's request, put together in one place.

The runner sends what :func:`assemble` returns, and ``agent-tui context`` measures
the same :class:`Assembly`, so the two cannot drift apart: the base prompt, the
instruction baseline, the lowered and pruned history, the tools offered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.log.records import MessageRecord, SessionRecord, ToolCallRecord
from agent_tui.core.request import prompts
from agent_tui.core.request.base_prompts import base_prompt
from agent_tui.core.request.builder import history_messages
from agent_tui.core.request.pruning import Pruned, PruneRule, prune
from agent_tui.core.settings.config import Settings
from agent_tui.llm import types as llm


@dataclass(frozen=True)
class Assembly:
    """A request and the pieces it was made of."""

    request: llm.Request
    system_prompt: str
    baseline: str
    pruned: Pruned
    """The history after pruning (``pruned.messages``) and what pruning took out."""


def assemble(
    *,
    session: SessionRecord,
    settings: Settings,
    agent: str,
    model: str,
    offered: list[llm.ToolSpec],
    baseline: str | None,
    history: Sequence[MessageRecord],
    tool_calls: Sequence[ToolCallRecord],
    supports_vision: bool,
    final_step: bool = False,
) -> Assembly:
    """``offered``: the agent's tools (the final step sends none, but its prompt matches the others');
    ``baseline``: the instruction checkpoint's baseline, None for the environment facts alone."""
    own = settings.agent_settings(agent)
    system_prompt = base_prompt(model, own.prompt, [t.name for t in offered], agent)
    if baseline is None:
        baseline = prompts.environment_facts(Path(session.location), Path(session.project_root))
    lowered = history_messages(history, tool_calls, agent)
    pruned = prune(lowered, PruneRule.configured(settings.context))
    model_settings = settings.model_settings(model)
    request = llm.Request(
        model=model,
        system=[system_prompt, baseline],
        messages=pruned.messages,
        tools=[] if final_step else offered,
        api_base=model_settings.api_base or settings.api_base,
        api_key=settings.api_key,
        max_tokens=model_settings.max_output_tokens,
        price=model_settings.price(),
        temperature=own.temperature,
        supports_vision=supports_vision,
    )
    return Assembly(
        request=as_final_step(request) if final_step else request,
        system_prompt=system_prompt,
        baseline=baseline,
        pruned=pruned,
    )


def as_final_step(request: llm.Request) -> llm.Request:
    """The last step the allowance permits: no tools, and a reminder to answer now."""
    reminder = llm.SystemReminder(text=prompts.FINAL_STEP_REMINDER)
    return request.model_copy(update={"tools": [], "messages": [*request.messages, reminder]})
