"""``agent-tui skills``: the skills found for a directory, the denied marked, the bad ones on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui import cli
from agent_tui.core.api import paths
from tests.fakes.skills import write_skill


def _project(workdir: Path) -> None:
    write_skill(workdir / ".agents/skills", "release-notes", "Write release notes.")
    write_skill(paths.user_skills_dir(), "deploy-prod", "Deploy to production.")
    write_skill(workdir / ".claude/skills", "broken", front="description: no name\n")
    config = workdir / ".agent-tui" / "config.toml"
    config.parent.mkdir()
    config.write_text('[[permission]]\naction = "skill"\npattern = "deploy-*"\neffect = "deny"\n')


def test_each_skill_is_one_line_and_a_bad_skill_md_one_line_on_stderr(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(workdir)
    assert cli.main(["skills", str(workdir)], warm=False) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"deploy-prod  [denied]  Deploy to production.  (user {paths.user_skills_dir().resolve()})",
        "release-notes  Write release notes.  (project .agents/skills)",
    ]
    (line,) = err.splitlines()
    assert line.startswith("agent-tui: skipped ") and line.endswith("broken/SKILL.md: name: missing")


def test_json_gives_one_object_per_skill_and_per_problem(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _project(workdir)
    assert cli.main(["skills", str(workdir), "--json", "--agent", "plan"], warm=False) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r.get("name") for r in records] == ["deploy-prod", "release-notes", None]
    assert records[0]["denied"] is True and "name: missing" in records[2]["problem"]
