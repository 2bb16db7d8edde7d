"""Agent definitions: the built-in build and plan agents, ``[agents.NAME]`` in config, Markdown
files (ours and Claude Code's), bad files as one line each, and the plan agent's read-only rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.settings import config, config_validation, trust
from agent_tui.tools.permissions import Guard, evaluate


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def stored_trust_only():
    trust.assume(None)
    yield
    trust.assume(None)


def _verdict(settings: config.Settings, agent: str, action: str, resource: str) -> str:
    """What the gate decides before asking: the agent's guard first, then the rules."""
    if Guard(agent, tuple(settings.agent_guard(agent))).denial(action, resource) is not None:
        return "deny"
    return evaluate(settings.permission_rules(agent), action, resource).effect.value


def test_build_and_plan_are_built_in_primary_agents(workdir: Path) -> None:
    settings = config_validation.load_settings(workdir, environ={})
    assert settings.primary_agents() == ["build", "plan"]
    assert settings.agent_settings("plan").description and settings.agent_sources("plan") == ["built-in"]
    assert settings.problems == []


def test_config_agents_take_every_field(workdir: Path, agent_home: Path) -> None:
    _write(
        agent_home / "config.toml",
        '[agents.review]\ndescription = "Reviews a diff"\nmode = "subagent"\nmodel = "openai/small"\n'
        'temperature = 0.2\nprompt = "You review."\ntools = ["read", "mcp__docs__*"]\n'
        'disallowed_tools = ["bash"]\nsteps = 5\n',
    )
    settings = config_validation.load_settings(workdir, environ={})
    review = settings.agent_settings("review")
    assert (review.description, review.mode, review.model, review.temperature) == (
        "Reviews a diff",
        "subagent",
        "openai/small",
        0.2,
    )
    assert (review.prompt, review.steps) == ("You review.", 5)
    assert [review.offers(name) for name in ("read", "mcp__docs__search", "bash", "apply_patch")] == [
        True,
        True,
        False,
        False,
    ]
    assert settings.primary_agents() == ["build", "plan"]  # a subagent is not selectable
    assert settings.agent_sources("review") == [str(agent_home / "config.toml")]


OURS = """---
description: Reviews changes
mode: primary
model: openai/reviewer
temperature: 0.1
tools: [read, bash]
steps: 9
permission:
  - {action: bash, pattern: "git *", effect: ask}
---
You are the review agent. Read the diff and comment.
"""

CLAUDE = """---
name: code-reviewer
description: |
  Expert reviewer.
  Use after each change.
tools: Read, Grep, Glob, Bash, WebFetch, TodoWrite
model: sonnet
color: blue
---
You are a senior code reviewer.
"""


def test_markdown_agents_ours_and_claude_codes(workdir: Path) -> None:
    _write(workdir / ".agent-tui" / "agents" / "review.md", OURS)
    _write(workdir / ".claude" / "agents" / "code-reviewer.md", CLAUDE)
    settings = config_validation.load_settings(workdir, environ={})
    review = settings.agent_settings("review")
    assert (review.mode, review.model, review.temperature, review.tools, review.steps) == (
        "primary",
        "openai/reviewer",
        0.1,
        ["read", "bash"],
        9,
    )
    assert review.prompt == "You are the review agent. Read the diff and comment."
    assert [(r.action, r.pattern, r.effect.value) for r in review.permission] == [("bash", "git *", "ask")]
    assert settings.agent_sources("review") == [".agent-tui/agents/review.md"]

    claude = settings.agent_settings("code-reviewer")
    assert claude.mode == "subagent" and claude.model is None  # sonnet: the session's model
    assert (
        claude.tools == ["read", "bash", "todo"] and claude.description == "Expert reviewer.\nUse after each change.\n"
    )
    assert claude.prompt == "You are a senior code reviewer."
    assert settings.problems == [".claude/agents/code-reviewer.md: tools: no tool here for WebFetch; left out"]
    assert settings.primary_agents() == ["build", "plan", "review"]


def test_config_over_project_files_over_user_files(workdir: Path, agent_home: Path) -> None:
    _write(agent_home / "agents" / "review.md", "---\ndescription: mine\nsteps: 3\n---\nUser prompt.\n")
    _write(workdir / ".claude" / "agents" / "review.md", "---\ndescription: claude's\n---\nClaude prompt.\n")
    _write(workdir / ".agent-tui" / "agents" / "review.md", "---\ndescription: project's\n---\n")
    _write(workdir / ".agent-tui" / "config.toml", '[agents.review]\ndescription = "config\'s"\n')
    settings = config_validation.load_settings(workdir, environ={})
    review = settings.agent_settings("review")
    assert (review.description, review.prompt, review.steps) == ("config's", "Claude prompt.", 3)
    assert settings.agent_sources("review") == [
        str(agent_home / "agents" / "review.md"),
        ".claude/agents/review.md",
        ".agent-tui/agents/review.md",
        str(workdir / ".agent-tui" / "config.toml"),
    ]


def test_a_bad_file_is_one_line_naming_file_and_key_and_the_rest_load(workdir: Path) -> None:
    agents = workdir / ".agent-tui" / "agents"
    _write(agents / "review.md", "---\nmode: sometimes\n---\nReview.\n")
    _write(agents / "hot.md", "---\ntemperature: warm\n---\nHot.\n")
    _write(agents / "typo.md", "---\ndescripton: x\n---\nTypo.\n")
    _write(agents / "broken.md", "---\ndescription: [unclosed\n---\nBroken.\n")
    _write(agents / "open.md", "---\ndescription: never closed\n")
    _write(agents / "good.md", "---\ndescription: fine\n---\nGood.\n")
    settings = config_validation.load_settings(workdir, environ={})
    assert "good" in settings.agents and not {"review", "hot", "typo", "broken", "open"} & set(settings.agents)
    problems = sorted(settings.problems)
    assert len(problems) == 5 and all("\n" not in line for line in problems)
    assert problems[0].startswith(".agent-tui/agents/broken.md: the front matter is not valid YAML (line ")
    assert problems[1].startswith(".agent-tui/agents/hot.md: temperature: ")
    assert problems[2] == ".agent-tui/agents/open.md: the front matter's opening --- has no closing ---"
    assert problems[3] == ".agent-tui/agents/review.md: mode: 'sometimes' is not one of primary, subagent, all"
    assert problems[4].startswith(".agent-tui/agents/typo.md: descripton: not an agent setting")


def test_a_projects_agent_file_cannot_allow(workdir: Path, agent_home: Path) -> None:
    allowing = (
        "---\npermission:\n  - {action: bash, pattern: '*', effect: allow}\n"
        "  - {action: bash, pattern: 'rm *', effect: deny}\n---\nRun anything.\n"
    )
    _write(workdir / ".agent-tui" / "agents" / "yolo.md", allowing)
    _write(agent_home / "agents" / "mine.md", allowing)  # the user's own file may
    settings = config_validation.load_settings(workdir, environ={})
    assert _verdict(settings, "yolo", "bash", "make") == "ask"
    assert _verdict(settings, "yolo", "bash", "rm -rf x") == "deny"  # its deny stays
    assert _verdict(settings, "mine", "bash", "make") == "allow"
    assert settings.problems == [
        ".agent-tui/agents/yolo.md: permission: a project's agent file may not allow; its allow rules are "
        "left out (put them in .agent-tui/config.toml [agents.NAME], which trust covers)"
    ]


@pytest.mark.parametrize(
    ("command", "effect"),
    [
        ("ls -la", "allow"),
        ("git status", "allow"),
        ("rg -n foo src", "allow"),
        ("find . -name '*.py'", "allow"),
        ("rm -rf x", "deny"),
        ("ls; rm -rf x", "deny"),
        ("ls && (cd .. && rm x)", "deny"),
        ("ls | xargs rm", "deny"),
        ("cat a > b", "deny"),
        ("find . -delete", "deny"),
        ("find . -exec rm {} \\;", "deny"),
        ("cat $(rm x)", "deny"),
        ("git push", "deny"),
        ("npm test", "deny"),
    ],
)
async def test_plan_runs_only_commands_that_read(workdir: Path, agent_home: Path, command: str, effect: str) -> None:
    from agent_tui.tools.asks import PermissionDecision
    from agent_tui.tools.errors import AgentDenied
    from agent_tui.tools.permissions import PermissionGate
    from agent_tui.vocab.kinds import PermissionReply

    _write(agent_home / "config.toml", '[[permission]]\naction = "*"\npattern = "*"\neffect = "allow"\n')
    settings = config_validation.load_settings(workdir, environ={})
    asked: list[str] = []

    class NoApprovals:
        async def approved(self, project_root: str) -> list[tuple[str, str]]:
            return []

    async def yes(request):  # type: ignore[no-untyped-def]
        asked.append(request.resources)
        return PermissionDecision(reply=PermissionReply.ONCE)

    gate = PermissionGate(
        settings.permission_rules("plan"),
        NoApprovals(),
        yes,
        workdir,
        workdir,
        guard=Guard("plan", tuple(settings.agent_guard("plan"))),
    )
    if effect == "allow":
        await gate.check("bash", [command])
        return
    with pytest.raises(AgentDenied, match="the plan agent may not bash"):
        await gate.check("bash", [command])
    assert asked == []  # denied, never asked: a yes cannot lift it


def test_plan_edits_are_denied_whatever_the_global_rules_and_only_its_own_rules_widen(
    workdir: Path, agent_home: Path
) -> None:
    user = (
        '[[permission]]\naction = "bash"\npattern = "git push*"\neffect = "deny"\n'
        '[[permission]]\naction = "edit"\npattern = "*"\neffect = "allow"\n'
        '[[permission]]\naction = "bash"\npattern = "*"\neffect = "allow"\n'
    )
    _write(agent_home / "config.toml", user)
    settings = config_validation.load_settings(workdir, environ={})
    assert _verdict(settings, "build", "edit", "a.py") == "allow"
    assert _verdict(settings, "plan", "edit", "a.py") == "deny"
    assert _verdict(settings, "plan", "bash", "make") == "deny"
    _write(
        agent_home / "config.toml",
        user + '[agents.plan]\npermission = [{ action = "bash", pattern = "make check*", effect = "allow" }]\n',
    )
    settings = config_validation.load_settings(workdir, environ={})
    assert _verdict(settings, "plan", "bash", "make check") == "allow"
    assert _verdict(settings, "plan", "bash", "make install") == "deny"
    assert _verdict(settings, "plan", "edit", "a.py") == "deny"


def test_a_project_cannot_widen_plan_untrusted(workdir: Path) -> None:
    _write(
        workdir / ".agent-tui" / "config.toml",
        '[agents.plan]\npermission = [{ action = "edit", pattern = "*", effect = "allow" }]\n',
    )
    settings = config_validation.load_settings(workdir, environ={})
    assert settings.untrusted_project is not None
    assert _verdict(settings, "plan", "edit", "a.py") == "deny"


def test_agent_files_are_part_of_the_config_stamp(workdir: Path) -> None:
    from agent_tui.core.settings.config_layers import config_stamp

    before = config_stamp(workdir, environ={})
    _write(workdir / ".agent-tui" / "agents" / "review.md", "Review.\n")
    assert config_stamp(workdir, environ={}) != before
