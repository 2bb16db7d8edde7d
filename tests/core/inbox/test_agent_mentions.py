"""Which subagents a mention may hand work to, and what ``build_prompt`` makes of ``@NAME``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.inbox.agent_mentions import callable_subagents, guidance
from agent_tui.core.inbox.attachments import AttachmentError, attach_policy, build_prompt
from agent_tui.core.log import events as ev
from agent_tui.core.settings import config, config_validation


def _settings(workdir: Path, **cli: Any) -> config.Settings:
    return config_validation.load_settings(workdir, cli=cli, environ={})


def _deny(pattern: str) -> dict[str, str]:
    return {"action": "task", "pattern": pattern, "effect": "deny"}


def test_the_built_in_subagents_are_callable_from_build_and_plan(workdir: Path) -> None:
    settings = _settings(workdir)
    assert callable_subagents(settings, "build") == ["explore", "general"]
    assert callable_subagents(settings, "plan") == ["explore", "general"]
    assert callable_subagents(settings, None) == ["explore", "general"]  # the default agent


def test_only_subagent_and_all_modes_count(workdir: Path) -> None:
    settings = _settings(
        workdir, agents={"review": {"mode": "all"}, "chat": {"mode": "primary"}, "docs": {"mode": "subagent"}}
    )
    assert callable_subagents(settings, "build") == ["docs", "explore", "general", "review"]


def test_the_agents_own_rules_and_tools_decide(workdir: Path) -> None:
    assert callable_subagents(_settings(workdir, agents={"build": {"permission": [_deny("explore")]}}), "build") == [
        "general"
    ]
    assert callable_subagents(_settings(workdir, agents={"build": {"permission": [_deny("*")]}}), "build") == []
    assert callable_subagents(_settings(workdir, agents={"build": {"permission": [_deny("*")]}}), "plan") != []
    assert callable_subagents(_settings(workdir, agents={"build": {"tools": ["read"]}}), "build") == []


def test_a_subagents_session_needs_a_rule_allowing_task_by_name(workdir: Path) -> None:
    assert callable_subagents(_settings(workdir), "general", spawned=True) == []
    allow = {"action": "task", "pattern": "explore", "effect": "allow"}
    settings = _settings(workdir, agents={"general": {"permission": [allow]}})
    assert callable_subagents(settings, "general", spawned=True) == ["explore"]


async def test_a_mention_becomes_the_guidance_part_after_the_typed_text(workdir: Path) -> None:
    policy = attach_policy(_settings(workdir), "build", location=workdir)
    parts = await build_prompt("ask @general and @explore, then @general again", workdir, policy=policy)
    assert parts == [
        ev.TextPart(text="ask @general and @explore, then @general again"),
        ev.AgentPart(name="general", text=guidance("general")),
        ev.AgentPart(name="explore", text=guidance("explore")),
    ]
    assert ev.prompt_text(parts) == "ask @general and @explore, then @general again"
    assert ev.prompt_text([parts[1]]) == "@general"  # a part without the text still reads as the mention


async def test_a_folder_or_a_file_flag_of_that_name_is_a_path(workdir: Path) -> None:
    settings = _settings(workdir)
    (workdir / "explore").mkdir()
    policy = attach_policy(settings, "build", location=workdir)
    [_, folder] = await build_prompt("@explore", workdir, policy=policy)
    assert isinstance(folder, ev.FilePart) and folder.mime == "inode/directory"
    with pytest.raises(AttachmentError, match="@general: no such file or folder"):
        await build_prompt("hi", workdir, files=["general"], policy=policy)


async def test_without_settings_nothing_is_an_agent(workdir: Path) -> None:
    with pytest.raises(AttachmentError, match="no such file"):
        await build_prompt("@explore", workdir, policy=attach_policy(None, None, location=workdir))
