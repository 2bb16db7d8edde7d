"""``agent-tui agents``: every agent (built in, config, Markdown files) with its mode, description and
source; ``--json``; a bad agent file is one line on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui import cli
from agent_tui.core.api import paths


def _project(workdir: Path) -> None:
    agents = workdir / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "review.md").write_text("---\ndescription: Reviews the diff\nmode: primary\n---\nYou review diffs.\n")
    (agents / "bad.md").write_text("---\nmode: sometimes\n---\nx\n")
    user = paths.user_config_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('agent = "plan"\n\n[agents.docs]\ndescription = "Writes docs"\nmode = "subagent"\n')


def test_each_agent_is_one_line_and_a_bad_file_one_line_on_stderr(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(workdir)
    assert cli.main(["agents", str(workdir)], warm=False) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["build", "primary"],
        ["*", "plan"],
        ["general", "subagent"],
        ["explore", "subagent"],
        ["review", "primary"],
        ["docs", "subagent"],
    ]
    assert lines[0].endswith("(built-in)")
    assert lines[4].endswith("Reviews the diff  (.agent-tui/agents/review.md)")
    assert lines[5].endswith(f"Writes docs  ({paths.user_config_file()})")
    (line,) = err.splitlines()
    assert line == "agent-tui: skipped .agent-tui/agents/bad.md: mode: 'sometimes' is not one of primary, subagent, all"


def test_json_gives_one_object_per_agent_and_per_problem(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _project(workdir)
    assert cli.main(["agents", str(workdir), "--json"], warm=False) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r.get("name") for r in records] == ["build", "plan", "general", "explore", "review", "docs", None]
    review = records[4]
    assert review == {
        "name": "review",
        "mode": "primary",
        "description": "Reviews the diff",
        "source": ".agent-tui/agents/review.md",
        "sources": [".agent-tui/agents/review.md"],
        "default": False,
    }
    assert records[1]["default"] is True and records[0]["sources"] == ["built-in"]
    assert "bad.md: mode:" in records[-1]["problem"]


def test_a_missing_directory_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["agents", str(tmp_path / "nowhere")], warm=False) != 0
    assert "not a directory" in capsys.readouterr().err
