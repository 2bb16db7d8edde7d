"""The built-in agents, as data: ``build`` (the default) and ``plan`` (investigates and proposes),
and two subagents for the ``task`` tool: ``general`` (does what ``build`` does) and ``explore``
(reads and searches under the plan agent's rules).

An agent is a set of settings (``config.AgentSettings``) named in ``[agents.NAME]``; these two
are the lowest layer under the Markdown files and the config files, so ``[agents.plan]`` changes
the plan agent field by field and its permission rules add to the built-in ones.

The plan agent's own rules deny every edit and every ``bash`` command but a curated list of
commands that only read. An agent's own rules are a guard (``Settings.agent_guard``): what they
deny stays denied whatever the global rules, a ``--permission allow`` policy or a yes to an ask
say; only the agent's own later rules (the user's ``[agents.plan]``) lift it. A ``bash`` line is
judged simple command by simple command (``ls; rm x`` is ``ls`` and ``rm x``), and a simple
command's text includes its redirections, so ``cat a > b`` meets the ``*>*`` deny.

Stdlib only: no pydantic here; ``config`` validates these like any layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.core.settings.config_layers import DEFAULT_AGENT

PLAN_AGENT = "plan"
GENERAL_AGENT = "general"
EXPLORE_AGENT = "explore"

AGENT_MODES = ("primary", "subagent", "all")
"""``primary``: the user selects it; ``subagent``: only for delegated tasks; ``all``: both."""

READ_ONLY_COMMANDS = (
    "ls",
    "pwd",
    "cat",
    "head",
    "tail",
    "wc",
    "file",
    "stat",
    "du",
    "tree",
    "which",
    "grep",
    "rg",
    "find",
    "git status",
    "git diff",
    "git log",
    "git show",
    "git blame",
    "git grep",
    "git ls-files",
    "git rev-parse",
    "git branch --list",
)
"""Commands the plan agent may run (each with any arguments, bar the ones below)."""

WRITING_FORMS = (
    "*>*",  # a redirection that writes (``>``, ``>>``, ``&>``), part of the simple command's text
    "find *-exec*",
    "find *-ok*",
    "find *-delete*",
    "find *-fprint*",
    "find *-fls*",
    "rg *--pre*",
    "tree *-o*",
    "git *--output*",
    "git grep *-O*",
    "git grep *--open-files-in-pager*",
)
"""Forms of those commands that write, delete or run another program: denied after the allows."""


def _rule(action: str, pattern: str, effect: str) -> dict[str, str]:
    return {"action": action, "pattern": pattern, "effect": effect}


PLAN_RULES: tuple[dict[str, str], ...] = (
    _rule("edit", "*", "deny"),
    _rule("bash", "*", "deny"),
    *(_rule("bash", f"{command} *", "allow") for command in READ_ONLY_COMMANDS),
    *(_rule("bash", form, "deny") for form in WRITING_FORMS),
)

BUILTIN_AGENTS: dict[str, dict[str, Any]] = {
    DEFAULT_AGENT: {
        "description": "The default agent: reads, edits files and runs commands (edits and commands ask first).",
        "mode": "primary",
    },
    PLAN_AGENT: {
        "description": "Investigates and proposes a plan: it reads and searches, never edits.",
        "mode": "primary",
        "sandbox": "read-only",
    },
    GENERAL_AGENT: {
        "description": (
            "General-purpose subagent for multi-step work and research that would fill your context: "
            "it reads, edits and runs commands like you, and answers with what it did and found."
        ),
        "mode": "subagent",
    },
    EXPLORE_AGENT: {
        "description": (
            "Read-only subagent that searches and reads the codebase to answer a question (where is X, "
            "how does Y work); it never edits. Say how thorough it should be."
        ),
        "mode": "subagent",
        "sandbox": "read-only",
    },
}
"""The built-in agents' settings, as a config layer would write them (their rules: ``builtin_rules``)."""


def builtin_rules(agent: str) -> list[dict[str, str]]:
    """The built-in agent's own permission rules, first of the agent's rules (none for others)."""
    return [dict(rule) for rule in PLAN_RULES] if agent in (PLAN_AGENT, EXPLORE_AGENT) else []


@dataclass(frozen=True)
class AgentRow:
    """One agent as ``agent-tui agents`` and ``/agents`` list it."""

    name: str
    mode: str
    """``primary``, ``subagent`` or ``all``."""
    description: str
    source: str
    """Where it was defined last (the one that wins): ``built-in``, a Markdown file, a config file."""
    sources: list[str]
    """Every place that defines it, lowest precedence first."""
    default: bool
    """The agent a new session starts with (``agent`` in the config)."""

    @property
    def primary(self) -> bool:
        """The user may select it (``primary`` or ``all``)."""
        return self.mode != "subagent"


def agent_listing(settings: Any) -> list[AgentRow]:
    """Every agent of ``settings`` (a ``config.Settings``), built-in ones first, in definition order."""
    rows = []
    for name, agent in settings.agents.items():
        sources = settings.agent_sources(name) or ["built-in"]
        rows.append(AgentRow(name, agent.mode, agent.description, sources[-1], sources, name == settings.agent))
    return rows
