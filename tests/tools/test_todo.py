"""The ``todo`` tool: the whole checklist in, the plan echoed back, one step at a time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent_tui.tools.asks import PermissionDecision
from agent_tui.tools.builtin import default_registry
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.todo import TODO
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.kinds import ErrorType, PermissionReply
from tests.fakes.asks import RecordingAsker

from .conftest import gate_for, invoke_tool, output_text


async def todo(scope: ToolScope, items: object) -> ToolOutcome:
    return await invoke_tool(TODO, scope, items=items)


async def test_the_plan_is_echoed_compactly_and_kept_in_data(scope: ToolScope) -> None:
    items = [
        {"content": "read the parser", "status": "done"},
        {"content": " fix the bug ", "status": "in_progress"},
        {"content": "run the tests", "status": "pending"},
    ]
    out = await todo(scope, items)
    assert output_text(out).splitlines() == [
        "Plan updated (1/3 done):",
        "[x] read the parser",
        "[>] fix the bug",
        "[ ] run the tests",
    ]
    assert out.output is not None
    assert out.output.data == {
        "plan": [
            {"content": "read the parser", "status": "done"},
            {"content": "fix the bug", "status": "in_progress"},
            {"content": "run the tests", "status": "pending"},
        ]
    }


async def test_an_empty_list_clears_the_plan(scope: ToolScope) -> None:
    out = await todo(scope, [])
    assert output_text(out) == "Plan cleared."
    assert out.output is not None and out.output.data == {"plan": []}


async def test_two_items_in_progress_are_refused_by_name(scope: ToolScope) -> None:
    out = await todo(scope, [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}])
    assert out.error is not None and out.error.type == ErrorType.TOOL_INPUT
    assert "At most one item may be in_progress; 2 are ('a', 'b')" in out.error.message


async def test_bad_items_name_the_field(scope: ToolScope) -> None:
    out = await todo(scope, [{"content": "a", "status": "started"}])
    assert out.error is not None and out.error.type == ErrorType.TOOL_INPUT
    assert "items.0.status" in out.error.message
    blank = await todo(scope, [{"content": "   ", "status": "pending"}])
    assert blank.error is not None and "items.0.content" in blank.error.message
    extra = await invoke_tool(TODO, scope, items=[], note="x")
    assert extra.error is not None and "note" in extra.error.message


async def test_it_asks_no_permission(workdir: Path, make_scope: Callable[..., ToolScope]) -> None:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.REJECT))
    scope = make_scope(gate=gate_for(workdir, asker))
    out = await todo(scope, [{"content": "a", "status": "pending"}])
    assert out.ok and asker.requests == []


def test_it_is_a_builtin_with_a_plain_schema(workdir: Path) -> None:
    spec = {d["name"]: d for d in default_registry(workdir).definitions()}["todo"]
    item = spec["parameters"]["$defs"]["PlanItem"]
    assert spec["parameters"]["required"] == ["items"]
    assert item["properties"]["status"]["$ref"].endswith("PlanStatus")
    assert spec["parameters"]["$defs"]["PlanStatus"]["enum"] == ["pending", "in_progress", "done"]
