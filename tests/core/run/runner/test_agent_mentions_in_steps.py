"""``@explore`` in a prompt: the model is asked to hand the work to that subagent, only when it could
(issue 25, "Agents, subagents and skills"; the reference's "Agent-reference expansion")."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.core.inbox.agent_mentions import guidance
from agent_tui.core.inbox.attachments import AttachmentError, attach_policy, build_prompt
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import of_type, stored

EXPLORE = guidance("explore")


async def _send(runtime: Runtime, fake: FakeProvider, workdir: Any, text: str, agent: str | None = None) -> str:
    """Build the prompt as the TUI and ``run`` do (the selected agent's policy), admit it, run one step."""
    settings = await runtime.settings_for(str(workdir))
    sid = (await runtime.sessions.create(location=workdir, agent=agent)).id
    policy = attach_policy(settings, agent or settings.agent, location=workdir)
    await runtime.sessions.prompt(sid, await build_prompt(text, workdir, policy=policy), resume=False)
    fake.add({"text": "done"})
    assert await runtime.sessions.run(sid) is None
    return sid


def _user_texts(body: dict[str, Any]) -> list[str]:
    content = [m for m in body["messages"] if m["role"] == "user"][0]["content"]
    return [c["text"] for c in content if c["type"] == "text"]


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


async def test_a_mentioned_subagent_is_guidance_the_model_sees_and_a_replay_keeps(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    sid = await _send(runtime, fake, workdir, "@explore where is the retry policy?")
    body = fake.accepted[0].body
    assert _user_texts(body) == ["@explore where is the retry policy?", EXPLORE]
    assert 'call the task tool with agent "explore"' in EXPLORE
    assert "task" in _tool_names(body)  # the guidance names a tool the model has

    admitted = of_type(await stored(runtime, sid), ev.PromptAdmitted)[0]
    assert admitted.prompt[1] == ev.AgentPart(name="explore", text=EXPLORE)
    assert ev.prompt_text(admitted.prompt) == "@explore where is the retry policy?"  # never the user's text
    transcript = await runtime.sessions.transfer.export(sid, "markdown")
    assert "@explore where is the retry policy?" in transcript and "call the task tool" not in transcript
    copy = await runtime.sessions.transfer.import_session(await runtime.sessions.transfer.export(sid), location=workdir)
    imported = of_type(await stored(runtime, copy.id), ev.PromptAdmitted)[0]
    assert imported.prompt == admitted.prompt  # a JSONL round trip keeps the guidance as sent

    await runtime.sessions.prompt(sid, "and the backoff?", resume=False)
    fake.add({"text": "again"})
    assert await runtime.sessions.run(sid) is None
    assert _user_texts(fake.accepted[1].body) == ["@explore where is the retry policy?", EXPLORE]


async def test_a_file_of_that_name_wins_over_the_subagent(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    (workdir / "explore").write_text("notes\n")
    await _send(runtime, fake, workdir, "read @explore")
    texts = _user_texts(fake.accepted[0].body)
    assert texts[0] == "read @explore" and texts[1].startswith('<file path="explore">')
    assert EXPLORE not in texts


async def test_a_primary_agent_mentioned_is_plain_text(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    await _send(runtime, fake, workdir, "do it as @plan would")
    assert _user_texts(fake.accepted[0].body) == ["do it as @plan would"]


async def test_an_unknown_name_is_still_no_such_file(runtime: Runtime, workdir) -> None:
    settings = await runtime.settings_for(str(workdir))
    with pytest.raises(AttachmentError, match="@explorer: no such file or folder"):
        await build_prompt("@explorer look", workdir, policy=attach_policy(settings, None, location=workdir))


@pytest.mark.parametrize(
    "settings_overrides",
    [
        {"permission": [{"action": "task", "pattern": "*", "effect": "deny"}]},
        {"permission": [{"action": "task", "pattern": "explore", "effect": "deny"}]},
        {"agents": {"build": {"disallowed_tools": ["task"]}}},
        {"agents": {"build": {"tools": ["read", "echo"]}}},
    ],
    ids=["task-denied", "explore-denied", "task-disallowed", "task-not-in-tools"],
)
async def test_no_guidance_when_the_agent_may_not_start_it(
    runtime: Runtime, fake: FakeProvider, workdir, settings_overrides: dict[str, Any]
) -> None:
    await _send(runtime, fake, workdir, "@explore where is the retry policy?")
    assert _user_texts(fake.accepted[0].body) == ["@explore where is the retry policy?"]
