"""The base prompt through the real request path: chosen per model family, the agent's own
prompt instead, the plan tool when offered, and the same bytes on every step of a turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.host.tool_host import build_registry
from agent_tui.core.request.base_prompts import base_prompt
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.testing.test_tools import register as register_test_tools
from agent_tui.tools.registry import ToolRegistry
from agent_tui.vocab.clock import ManualClock
from tests.core.run.compaction.helpers import echo, texts

ANTHROPIC_SECTION = "<doing_the_work>"
OPENAI_SECTION = "# How you work"


def _system(body: dict[str, Any]) -> str:
    """The system text of a recorded request, on either wire."""
    if "system" in body:  # Anthropic Messages
        system = body["system"]
        return system if isinstance(system, str) else "\n".join(block["text"] for block in system)
    return "\n".join(texts(m) for m in body["messages"] if m["role"] == "system")


async def _one_turn(open_runtime: Any, workdir: Path, clock: ManualClock, cli: dict[str, Any], **opts: Any) -> None:
    async with await open_runtime(cli=cli, policy="allow", clock=clock, **opts) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "go", resume=False)
        assert await runtime.sessions.run(sid) is None


async def test_an_anthropic_model_and_an_openai_model_are_sent_their_own_familys_prompt(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    fake.add({"text": "from claude"}, {"text": "from gpt"})
    claude = {"model": "anthropic/claude-fake", "api_base": fake.base_url}
    await _one_turn(open_runtime, workdir, clock, claude)
    await _one_turn(open_runtime, workdir, clock, {"model": "openai/gpt-fake"})
    to_claude, to_gpt = (_system(request.body) for request in fake.accepted)
    assert ANTHROPIC_SECTION in to_claude and OPENAI_SECTION not in to_claude
    assert OPENAI_SECTION in to_gpt and ANTHROPIC_SECTION not in to_gpt
    for system in (to_claude, to_gpt):
        assert "*** Begin Patch" in system and "<environment>" in system  # the environment block still follows


async def test_an_agent_with_its_own_prompt_sends_it_instead_of_the_base_prompt(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    fake.add({"text": "reviewed"})
    cli = {"model": "openai/gpt-fake", "agents": {"build": {"prompt": "You are the reviewer agent."}}}
    await _one_turn(open_runtime, workdir, clock, cli)
    system = _system(fake.accepted[0].body)
    assert "You are the reviewer agent." in system and OPENAI_SECTION not in system


def _with_test_tools(location: Path) -> ToolRegistry:
    tools = build_registry(location)  # the built-in tools, ``todo`` among them
    register_test_tools(tools)
    return tools


async def test_the_prompt_is_the_same_on_every_step_even_the_final_one_and_names_the_offered_todo_tool(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    fake.add(echo("call_1", "one"), echo("call_2", "two"), {"text": "summary"})
    cli = {"model": "anthropic/claude-fake", "api_base": fake.base_url, "agents": {"build": {"steps": 3}}}
    await _one_turn(open_runtime, workdir, clock, cli, tools=_with_test_tools)
    bodies = [request.body for request in fake.accepted]
    offered = [{tool["name"] for tool in body.get("tools", [])} for body in bodies]
    assert len(bodies) == 3 and "todo" in offered[0] and "todo" not in offered[2]
    assert "final step" in str(bodies[2]["messages"][-1]["content"]).lower()  # the last step offers no tools
    prompts = {_system(body) for body in bodies}
    assert len(prompts) == 1  # the provider's prompt cache holds across the turn
    (system,) = prompts
    assert "`todo` tool" in system
    assert base_prompt("anthropic/claude-fake", tools=["todo"]) in system
