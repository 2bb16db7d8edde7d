"""The ``skill`` tool: a skill's instructions and its files, behind the ``skill`` permission."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent_tui.core.request.skills import read_skill
from agent_tui.tools.asks import PermissionDecision
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.skill import SKILL
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.kinds import Effect, ErrorType, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker
from tests.fakes.skills import write_skill

from .conftest import error_message, gate_for, invoke_tool, output_text


def _scope_with_skills(make_scope: Callable[..., ToolScope], root: Path, gate: object = None) -> ToolScope:
    folder = write_skill(
        root,
        "release-notes",
        "Write release notes.",
        body="1. Read `references/style.md`.\n2. Group the changes.",
        files={"references/style.md": "Short lines.", "scripts/fmt.py": "print()", ".hidden": "x"},
    )
    skill = read_skill(folder, "project")
    return make_scope(gate=gate, skills={skill.name: skill})


async def load(scope: ToolScope, name: str) -> ToolOutcome:
    return await invoke_tool(SKILL, scope, name=name)


async def test_the_body_comes_back_with_the_bundled_files_as_paths_to_read(
    make_scope: Callable[..., ToolScope], workdir: Path
) -> None:
    scope = _scope_with_skills(make_scope, workdir / ".agents/skills")
    out = await load(scope, "release-notes")
    text = output_text(out)
    folder = (workdir / ".agents/skills/release-notes").resolve()
    assert text.startswith(f'<skill name="release-notes" folder="{folder}">\n1. Read `references/style.md`.')
    assert "name: release-notes" not in text  # the front matter is not the model's business
    assert text.splitlines()[-2:] == [str(folder / "references/style.md"), str(folder / "scripts/fmt.py")]
    assert ".hidden" not in text and "SKILL.md" not in text.split("</skill>")[1]
    assert out.output is not None and out.output.data["skill"] == "release-notes"


async def test_an_unknown_name_fails_with_the_names_there_are(
    make_scope: Callable[..., ToolScope], workdir: Path
) -> None:
    scope = _scope_with_skills(make_scope, workdir / ".agents/skills")
    out = await load(scope, "release")
    assert out.error is not None and out.error.type == ErrorType.TOOL_INPUT
    assert error_message(out) == "There is no skill named 'release'. Skills: release-notes."


async def test_loading_asks_nothing_by_default_and_a_deny_rule_refuses_it(
    make_scope: Callable[..., ToolScope], workdir: Path
) -> None:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ONCE))
    allowed = _scope_with_skills(make_scope, workdir / ".agents/skills", gate_for(workdir, asker))
    assert (await load(allowed, "release-notes")).ok and asker.requests == []
    deny = [PermissionRule(action="skill", pattern="release-*", effect=Effect.DENY)]
    denied = _scope_with_skills(make_scope, workdir / ".agents/skills", gate_for(workdir, asker, deny))
    out = await load(denied, "release-notes")
    assert "Permission denied: skill 'release-notes'" in error_message(out)
    ask = [PermissionRule(action="skill", pattern="*", effect=Effect.ASK)]
    asked = _scope_with_skills(make_scope, workdir / ".agents/skills", gate_for(workdir, asker, ask))
    assert (await load(asked, "release-notes")).ok
    assert [(r.action, r.resources) for r in asker.requests] == [("skill", ["release-notes"])]
