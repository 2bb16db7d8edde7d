"""Tool descriptions are Markdown files next to the tools, and they carry the how-to."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.builtin import default_registry

FILES = {
    "read": "agent_tui/tools/read.md",
    "bash": "agent_tui/tools/bash.md",
    "apply_patch": "agent_tui/tools/apply_patch/description.md",
    "todo": "agent_tui/tools/todo.md",
    "skill": "agent_tui/tools/skill.md",
}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def specs(tmp_path: Path) -> dict[str, str]:
    return {spec["name"]: spec["description"] for spec in default_registry(tmp_path).definitions()}


def test_each_builtin_tool_sends_its_description_file(specs: dict[str, str]) -> None:
    assert set(specs) == set(FILES)
    for name, path in FILES.items():
        assert specs[name] == (ROOT / path).read_text(encoding="utf-8").strip()


@pytest.mark.parametrize(
    ("tool", "lessons"),
    [
        ("read", ["offset", "2000", "apply_patch", "in one response", "fd"]),
        ("bash", ["fresh shell", "timeout_ms", "background", "`read`", "`apply_patch`", "rg -n", "git commit"]),
        ("apply_patch", ["*** Begin Patch", "*** End of File", "@@", "whole or not at all", "read"]),
        ("todo", ["whole list", "in_progress", "done", "Skip it", "Example input"]),
        ("skill", ["description", "`name`", "`read`", "absolute paths", "once per task", "Example input"]),
    ],
)
def test_each_description_says_how_to_use_the_tool_well(specs: dict[str, str], tool: str, lessons: list[str]) -> None:
    for lesson in lessons:
        assert lesson in specs[tool], f"{tool}: {lesson}"
