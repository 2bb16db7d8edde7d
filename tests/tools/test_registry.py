from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from agent_tui.tools.builtin import default_registry
from agent_tui.tools.errors import ToolError
from agent_tui.tools.read import READ
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.kinds import Effect
from agent_tui.vocab.permission_rule import PermissionRule
from agent_tui.vocab.tool_output import ToolOutput


class EchoInput(BaseModel):
    text: str = Field(description="What to echo.")
    times: int = 1


async def _echo(scope: ToolScope, params: EchoInput) -> ToolResult:
    if params.text == "boom":
        raise RuntimeError("exploded")
    if params.text == "typed":
        raise ToolError("a clear reason", "tool.custom")
    if params.text == "bad":
        return "not a result"  # type: ignore[return-value]
    if params.text == "sleep":
        await asyncio.sleep(30)
    return ToolResult(ToolOutput(text=params.text * params.times), {"n": params.times})


ECHO = Tool(name="echo", description="Echo text.", input_model=EchoInput, run=_echo, action="echo")
BASH_LIKE = Tool(name="bash", description="b", input_model=EchoInput, run=_echo, action="bash")
EDIT_LIKE = Tool(name="apply_patch", description="e", input_model=EchoInput, run=_echo, action="edit")


@pytest.fixture
def registry(workdir: Path) -> ToolRegistry:
    reg = ToolRegistry(workdir)
    reg.register(ECHO)
    return reg


async def test_invoke_decodes_input_and_returns_output(registry: ToolRegistry, scope: ToolScope) -> None:
    outcome = await registry.invoke("echo", {"text": "ab", "times": 2}, scope)
    assert outcome.ok and outcome.output is not None
    assert outcome.output.text == "abab"
    assert outcome.result_meta == {"n": 2}


async def test_bad_input_names_the_field(registry: ToolRegistry, scope: ToolScope) -> None:
    outcome = await registry.invoke("echo", {"text": "a", "times": "many"}, scope)
    assert outcome.error is not None
    assert outcome.error.type == "tool.input"
    assert "times" in outcome.error.message and "'many'" in outcome.error.message
    missing = await registry.invoke("echo", {}, scope)
    assert missing.error is not None and "text: Field required" in missing.error.message
    not_object = await registry.invoke("echo", ["x"], scope)
    assert not_object.error is not None and "expected a JSON object" in not_object.error.message


async def test_unknown_tool(registry: ToolRegistry, scope: ToolScope) -> None:
    outcome = await registry.invoke("nope", {}, scope)
    assert outcome.error is not None
    assert outcome.error.type == "tool.unknown"
    assert "Available tools: echo" in outcome.error.message


async def test_exceptions_become_typed_errors(registry: ToolRegistry, scope: ToolScope) -> None:
    crashed = await registry.invoke("echo", {"text": "boom"}, scope)
    assert crashed.error is not None and crashed.error.type == "tool.execution"
    assert "RuntimeError: exploded" in crashed.error.message
    typed = await registry.invoke("echo", {"text": "typed"}, scope)
    assert typed.error is not None and (typed.error.type, typed.error.message) == ("tool.custom", "a clear reason")
    invalid = await registry.invoke("echo", {"text": "bad"}, scope)
    assert invalid.error is not None and "invalid output" in invalid.error.message


async def test_cancellation_propagates(registry: ToolRegistry, scope: ToolScope) -> None:
    task = asyncio.create_task(registry.invoke("echo", {"text": "sleep"}, scope))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_definitions_hide_tools_denied_outright(workdir: Path) -> None:
    reg = ToolRegistry(workdir)
    for tool in (READ, BASH_LIKE, EDIT_LIKE):
        reg.register(tool)
    names = [d["name"] for d in reg.definitions([])]
    assert names == ["read", "bash", "apply_patch"]
    spec = reg.definitions([])[0]
    assert spec["parameters"]["required"] == ["path"]
    assert "offset" in spec["parameters"]["properties"]
    deny_bash = [PermissionRule(action="bash", pattern="*", effect=Effect.DENY)]
    assert [d["name"] for d in reg.definitions(deny_bash)] == ["read", "apply_patch"]
    # A later rule that allows some commands keeps the tool advertised.
    partly = [*deny_bash, PermissionRule(action="bash", pattern="git *", effect=Effect.ALLOW)]
    assert "bash" in [d["name"] for d in reg.definitions(partly)]
    # A deny of only some paths does not hide the tool.
    some = [PermissionRule(action="edit", pattern="secrets/*", effect=Effect.DENY)]
    assert "apply_patch" in [d["name"] for d in reg.definitions(some)]
    everything = [PermissionRule(action="*", pattern="*", effect=Effect.DENY)]
    assert reg.definitions(everything) == []


def test_register_twice_and_unregister(workdir: Path) -> None:
    reg = ToolRegistry(workdir)
    close = reg.register(ECHO)
    with pytest.raises(ValueError):
        reg.register(ECHO)
    close()
    assert reg.names() == []


async def test_default_registry_has_the_builtins(workdir: Path, scope: ToolScope) -> None:
    reg = default_registry(workdir)
    (workdir / "x.txt").write_text("hello\n")
    assert [d["name"] for d in reg.definitions()] == ["read", "bash", "apply_patch", "todo", "skill"]
    for spec in reg.definitions():
        assert spec["description"] and spec["parameters"]["type"] == "object"
    read_params = reg.definitions()[0]["parameters"]
    assert read_params["properties"]["offset"] == {
        "type": "integer",
        "minimum": 1,
        "description": "1-based line (or entry) to start from.",
    }
    assert read_params["required"] == ["path"] and read_params["additionalProperties"] is False
    explicit_null = await reg.invoke("read", {"path": "x.txt", "offset": None}, scope)
    assert explicit_null.output is not None
    (workdir / "x.txt").write_text("hello\n")
    outcome = await reg.invoke("read", {"path": "x.txt"}, scope)
    assert outcome.output is not None and "hello" in outcome.output.text
