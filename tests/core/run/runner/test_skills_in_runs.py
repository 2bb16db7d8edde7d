"""Skills through the checkpoint and the tool host: the available-skill guidance's baseline, update and
removal, the ``skill`` tool offered only while there is a skill to load, and a deny rule hiding one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from agent_tui.core.settings import paths
from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.skills import write_skill

from .conftest import reminders, system_text
from .test_configured_instructions import _turns


def _tools(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def _results(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


async def test_guidance_is_baselined_updated_when_a_skill_appears_and_removed_with_the_last(
    open_runtime: Any, fake: FakeProvider, workdir: Path
) -> None:
    project = workdir / ".agents/skills"
    write_skill(project, "release-notes", "Turn a list of changes into release notes.")
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})

    async def add_user_skill() -> None:
        write_skill(paths.user_skills_dir(), "deploy", "Deploy the service to staging.")

    async def remove_all() -> None:
        shutil.rmtree(project)
        shutil.rmtree(paths.user_skills_dir())

    await _turns(open_runtime, workdir, {}, [add_user_skill, remove_all], tools="all")
    first, second, third = (request.body for request in fake.accepted)
    system = system_text(first)
    assert "<available_skills>" in system and "`skill` tool" in system
    where = (project / "release-notes/SKILL.md").resolve()
    assert f"- release-notes: Turn a list of changes into release notes. ({where})" in system
    assert "deploy" not in system
    assert "skill" in _tools(first)
    assert system_text(second) == system  # the baseline never changes
    (update,) = reminders(second)
    assert "available skills changed" in update and "- deploy: Deploy the service" in update
    assert "- release-notes:" in update  # the whole list, restated
    assert "All skill instructions were removed" in reminders(third)[-1]
    assert "skill" not in _tools(third)  # nothing to load: no tool


async def test_without_skills_there_is_no_guidance_and_no_tool(
    open_runtime: Any, fake: FakeProvider, workdir: Path
) -> None:
    fake.add({"text": "one"})
    await _turns(open_runtime, workdir, {}, [], tools="all")
    body = fake.accepted[0].body
    assert "available_skills" not in system_text(body)
    assert "skill" not in _tools(body) and "read" in _tools(body)


async def test_the_model_loads_a_skill_and_reads_its_body_and_files(
    open_runtime: Any, fake: FakeProvider, workdir: Path
) -> None:
    folder = write_skill(
        workdir / ".agent-tui/skills",
        "release-notes",
        "Release notes.",
        body="Group the changes under Features and Fixes.",
        files={"references/style.md": "Short lines."},
    )
    fake.add(
        {"tool_calls": [{"id": "call_1", "name": "skill", "arguments": {"name": "release-notes"}}]}, {"text": "ok"}
    )
    await _turns(open_runtime, workdir, {}, [], tools="all")
    (result,) = _results(fake.accepted[1].body)
    assert "Group the changes under Features and Fixes." in result
    assert str((folder / "references/style.md").resolve()) in result


async def test_a_deny_rule_hides_a_skill_from_the_guidance_and_refuses_the_call(
    open_runtime: Any, fake: FakeProvider, workdir: Path
) -> None:
    write_skill(workdir / ".agents/skills", "deploy-prod", "Deploy to production.")
    write_skill(workdir / ".agents/skills", "lint", "Run the linters.")
    fake.add({"tool_calls": [{"id": "call_1", "name": "skill", "arguments": {"name": "deploy-prod"}}]}, {"text": "ok"})
    rules = {"permission": [{"action": "skill", "pattern": "deploy-*", "effect": "deny"}]}
    await _turns(open_runtime, workdir, rules, [], tools="all")
    first = fake.accepted[0].body
    assert "- lint: Run the linters." in system_text(first) and "deploy-prod" not in system_text(first)
    (result,) = _results(fake.accepted[1].body)
    assert "Permission denied: skill 'deploy-prod'" in result
