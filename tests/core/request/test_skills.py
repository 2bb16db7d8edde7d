"""Skill discovery: where skills are found, which wins a name, what a bad SKILL.md does, who may use one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.request.skills import discover_skills
from agent_tui.core.settings import paths
from agent_tui.vocab.kinds import Effect
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.skills import write_skill


def test_skills_are_found_in_every_project_folder_and_the_users(workdir: Path) -> None:
    write_skill(workdir / ".agent-tui/skills", "ours", "Our own.", body="Do it our way.")
    write_skill(workdir / ".agents/skills", "shared", "Shared with Codex.")
    write_skill(workdir / ".claude/skills", "claude", "From Claude Code.")
    write_skill(paths.user_skills_dir(), "mine", "The user's.")
    (workdir / ".agents/skills/not-a-skill").mkdir()  # no SKILL.md: not a skill, not a problem
    catalog = discover_skills(workdir)
    assert [(s.name, s.source) for s in catalog.skills] == [
        ("claude", "project"),
        ("mine", "user"),
        ("ours", "project"),
        ("shared", "project"),
    ]
    ours = catalog.named()["ours"]
    assert ours.description == "Our own." and ours.body == "Do it our way."
    assert ours.path == (workdir / ".agent-tui/skills/ours/SKILL.md").resolve()
    assert catalog.problems == ()


def test_the_project_wins_a_name_over_the_user_and_our_folder_over_the_others(workdir: Path) -> None:
    write_skill(paths.user_skills_dir(), "deploy", "User deploy.")
    write_skill(workdir / ".claude/skills", "deploy", "Claude deploy.")
    write_skill(workdir / ".agent-tui/skills", "deploy", "Our deploy.")
    catalog = discover_skills(workdir)
    (winner,) = catalog.skills
    assert winner.description == "Our deploy."
    assert [s.description for s in catalog.shadowed] == ["Claude deploy.", "User deploy."]


@pytest.mark.parametrize(
    ("folder", "front", "says"),
    [
        ("no-front", None, "no front matter"),
        ("no-name", "description: d\n", "name: missing"),
        ("no-description", "name: no-description\n", "description: missing"),
        ("Upper", "name: Upper\ndescription: d\n", "name: 'Upper' must be lowercase"),
        ("double--hyphen", "name: double--hyphen\ndescription: d\n", "single hyphens"),
        ("elsewhere", "name: other\ndescription: d\n", "differs from its folder's name 'elsewhere'"),
        ("long", "name: long\ndescription: " + "x" * 1025 + "\n", "description: 1025 characters, at most 1024"),
        ("list", "name: list\ndescription: [a, b]\n", "description: must be a non-empty string"),
        ("bad-yaml", "name: [bad\n", "not valid YAML"),
    ],
)
def test_a_bad_skill_is_one_line_naming_file_and_key_and_the_rest_load(
    workdir: Path, folder: str, front: str | None, says: str
) -> None:
    root = workdir / ".agents/skills"
    write_skill(root, "good", "Fine.")
    bad = write_skill(root, folder, front=front or "")
    if front is None:
        (bad / "SKILL.md").write_text("# Just a title\n")
    catalog = discover_skills(workdir)
    assert [s.name for s in catalog.skills] == ["good"]
    (problem,) = catalog.problems
    assert problem.startswith(f"{bad / 'SKILL.md'}: ") and says in problem and "\n" not in problem


def test_a_name_longer_than_64_is_refused(workdir: Path) -> None:
    name = "a" * 65
    write_skill(workdir / ".agents/skills", name, "Long name.")
    (problem,) = discover_skills(workdir).problems
    assert "name: 65 characters, at most 64" in problem


def test_project_skills_are_skipped_when_project_config_is_disabled(workdir: Path) -> None:
    write_skill(workdir / ".agents/skills", "project-one", "P.")
    write_skill(paths.user_skills_dir(), "user-one", "U.")
    catalog = discover_skills(workdir, environ={paths.DISABLE_PROJECT_ENV: "1"})
    assert [s.name for s in catalog.skills] == ["user-one"]


def test_a_deny_rule_hides_a_skill_and_the_default_allows(workdir: Path) -> None:
    for name in ("deploy-prod", "deploy-staging", "lint"):
        write_skill(workdir / ".agents/skills", name)
    catalog = discover_skills(workdir)
    assert [s.name for s in catalog.available([])] == ["deploy-prod", "deploy-staging", "lint"]
    rules = [
        PermissionRule(action="skill", pattern="deploy-*", effect=Effect.DENY),
        PermissionRule(action="skill", pattern="deploy-staging", effect=Effect.ASK),
    ]
    assert [s.name for s in catalog.available(rules)] == ["deploy-staging", "lint"]
    everything = [PermissionRule(action="skill", pattern="*", effect=Effect.DENY)]
    assert catalog.available(everything) == []
