"""The base prompt: one per family, the same craft in each, cache-friendly, replaceable by the agent's."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from agent_tui.core.request.base_prompts import base_prompt, family_prompt
from agent_tui.core.request.families import Family
from agent_tui.tools.apply_patch.parser import AddFile, UpdateFile, parse_patch
from tests.core.request.test_families import NAMES

OPENING = {
    Family.ANTHROPIC: "<doing_the_work>",
    Family.OPENAI: "# How you work",
    Family.GEMINI: "# Core mandates",
    Family.GENERAL: "## How to work",
}
"""A section only that family's prompt has: which text was chosen, at a glance."""


@pytest.mark.parametrize(("model", "family"), NAMES.items())
def test_the_prompt_chosen_for_a_model_name_is_its_familys(model: str, family: Family) -> None:
    prompt = base_prompt(model)
    assert OPENING[family] in prompt
    assert [f for f, marker in OPENING.items() if marker in prompt] == [family]


def test_the_four_family_prompts_differ() -> None:
    assert len({family_prompt(family) for family in Family}) == len(Family)


@pytest.mark.parametrize("family", list(Family))
def test_every_family_prompt_teaches_the_apply_patch_grammar_with_an_example_the_parser_accepts(
    family: Family,
) -> None:
    prompt = family_prompt(family)
    for marker in ("*** Begin Patch", "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "):
        assert marker in prompt
    assert "*** End Patch" in prompt and "@@" in prompt
    (example,) = re.findall(r"```\n(\*\*\* Begin Patch\n.*?\n\*\*\* End Patch)\n```", prompt, re.DOTALL)
    added, updated = parse_patch(example)
    assert isinstance(added, AddFile) and added.path == "src/greet/names.py"
    assert isinstance(updated, UpdateFile) and len(updated.chunks) == 2
    assert updated.chunks[1].context == "def main(argv):"


CRAFT = {
    "explore before editing, in parallel": r"(in parallel|same response|in one response|together in one response)",
    "rg and fd when present": r"`rg`.*`fd`",
    "the project's own checks": r"project's own (tests|checks)",
    "never revert others' changes": r"(?i)never revert",
    "never commit unless asked": r"(?i)(do not|never) (`git )?commit",
    "ask before destructive commands": r"(?i)ask before destructive|destructive .*(ask|confirmation)|Ask before anything destructive",
    "AGENTS.md scope": r"AGENTS\.md (applies to|covers) (its |the )?whole directory tree|scope of an AGENTS\.md",
    "path:line references": r"`path:line`",
}


@pytest.mark.parametrize("family", list(Family))
@pytest.mark.parametrize("lesson", list(CRAFT))
def test_every_family_prompt_teaches_the_same_craft(family: Family, lesson: str) -> None:
    assert re.search(CRAFT[lesson], family_prompt(family)), f"{family} does not teach: {lesson}"


@pytest.mark.parametrize("family", list(Family))
def test_the_plan_goes_to_the_todo_tool_only_when_it_is_offered(family: Family) -> None:
    with_todo = family_prompt(family, has_todo=True)
    without = family_prompt(family, has_todo=False)
    assert "`todo` tool" in with_todo
    assert "todo" not in without.lower()
    assert "numbered plan in your reply" in without
    assert base_prompt("anthropic/claude-x", tools=["read", "todo"]) == family_prompt(Family.ANTHROPIC, True)


@pytest.mark.parametrize("family", list(Family))
def test_a_family_prompt_has_every_fragment_spliced_in_and_nothing_that_changes_per_step(family: Family) -> None:
    prompt = family_prompt(family)
    assert "{{" not in prompt and "}}" not in prompt
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", prompt)  # dates live in the environment block
    assert family_prompt(family) == prompt


def test_an_agents_own_prompt_replaces_the_base_prompt() -> None:
    assert base_prompt("anthropic/claude-sonnet-4-5", "You review diffs.", ["todo"]) == "You review diffs."
    assert base_prompt("openai/gpt-5", "") == family_prompt(Family.OPENAI)  # empty: no prompt of its own


def test_the_prompt_files_are_package_resources() -> None:
    folder = resources.files("agent_tui.core.request").joinpath("prompt_texts")
    names = {entry.name for entry in folder.iterdir()}
    assert {f"{family.value}.md" for family in Family} <= names
    assert {"_apply_patch.md", "_plan_todo.md", "_plan_answer.md"} <= names
