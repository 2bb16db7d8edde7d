"""``@NAME`` for a subagent -> an :class:`~agent_tui.core.log.events.AgentPart`: guidance the model sees.

A mention of a subagent the selected agent could start with the ``task`` tool asks
the model to hand that work to it. The guidance is a part of its own, stored in
``prompt.admitted`` with the words the model is sent, so a replay, an export or a
compaction sees what the model saw; the user's typed text stays as typed (the
transcript shows ``@NAME`` once, and a chip).

Permission-aware on purpose: the guidance is written only when the model could
follow it, that is when the agent is offered ``task`` (its ``tools`` and
``disallowed_tools``, no ``* deny`` for ``task`` in its rules or its guard) and its
rules do not deny ``task`` for that name; a subagent session gets ``task`` only when
its agent's rules allow it by name (``run.subagents.spawns_subagents``). Anything
else would tell the model to call a tool it does not have, or one that refuses. It is decided
when the prompt is built, for the agent selected then, like a file's text: a replay asks the same.

``run.subagents`` (a floor above) imports ``may_run_as_subagent`` and ``subagent_names`` from
here, so the tool and the guidance agree on what a subagent is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.log import events as ev
from agent_tui.tools.permissions import evaluate
from agent_tui.tools.registry import denied_outright
from agent_tui.tools.task import TASK_ACTION, TASK_TOOL
from agent_tui.tools.wildcard import wildcard_match
from agent_tui.vocab.kinds import Effect

if TYPE_CHECKING:  # the settings model imports pydantic: only its name is needed here
    from agent_tui.core.settings.config import Settings


def may_run_as_subagent(settings: Settings, name: str) -> bool:
    """Whether the ``task`` tool may start agent ``name``: one defined with mode ``subagent`` or ``all``."""
    agent = settings.agents.get(name)
    return agent is not None and agent.mode in ("subagent", "all")


def subagent_names(settings: Settings) -> list[str]:
    return sorted(name for name in settings.agents if may_run_as_subagent(settings, name))


def callable_subagents(settings: Settings, agent: str | None, *, spawned: bool = False) -> list[str]:
    """The subagents ``agent``'s model may start with ``task``, sorted; none when it has no ``task``.

    ``spawned``: the session is itself a subagent's, which is offered ``task`` only when its
    agent's rules name ``task`` and allow the subagent (no recursion unless configured)."""
    name = agent or settings.agent
    rules = settings.permission_rules(name)
    if not settings.agent_settings(name).offers(TASK_TOOL):
        return []
    if denied_outright(TASK_ACTION, rules) or denied_outright(TASK_ACTION, settings.agent_guard(name)):
        return []
    if spawned and not any(rule.action != "*" and wildcard_match(rule.action, TASK_ACTION) for rule in rules):
        return []
    wanted = Effect.ALLOW if spawned else None
    return [
        sub
        for sub in subagent_names(settings)
        if (effect := evaluate(rules, TASK_ACTION, sub).effect) is not Effect.DENY
        and (wanted is None or effect is wanted)
    ]


def guidance(name: str) -> str:
    """What the model is told when the user mentions subagent ``name``."""
    return (
        f'The user asked for the @{name} agent: call the task tool with agent "{name}" for this work, '
        "with a prompt that gives it everything it needs (it sees nothing else of this conversation)."
    )


def agent_part(name: str) -> ev.AgentPart:
    return ev.AgentPart(name=name, text=guidance(name))
