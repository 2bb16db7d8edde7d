"""Fixtures for tool tests: a tool scope over a real directory with a chosen gate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.asks import NoApprovals
from agent_tui.tools.permissions import AllowAll, PermissionGate
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolOutcome
from agent_tui.vocab.permission_rule import PermissionRule


@pytest.fixture
def make_scope(workdir: Path, agent_home: Path) -> Callable[..., ToolScope]:
    def make(gate: Any = None, **kwargs: Any) -> ToolScope:
        return ToolScope(
            location=kwargs.pop("location", workdir),
            project_root=workdir,
            gate=gate or AllowAll(),
            spill_dir=agent_home / "spill",
            session_id="ses_test",
            assistant_message_id="msg_test",
            call_id="call_1",
            **kwargs,
        )

    return make


@pytest.fixture
def scope(make_scope: Callable[..., ToolScope]) -> ToolScope:
    return make_scope()


def gate_for(
    workdir: Path, asker: Any, rules: list[PermissionRule] | None = None, approvals: Any = None
) -> PermissionGate:
    return PermissionGate(rules or [], approvals or NoApprovals(), asker, workdir, workdir)


async def invoke_tool(tool: Tool, scope: ToolScope, **params: Any) -> ToolOutcome:
    """Call one tool through a registry, exactly as the runner does."""
    registry = ToolRegistry(scope.location)
    registry.register(tool)
    return await registry.invoke(tool.name, params, scope)


def output_text(outcome: ToolOutcome) -> str:
    assert outcome.output is not None, outcome.error
    return outcome.output.text


def error_message(outcome: ToolOutcome) -> str:
    assert outcome.error is not None, outcome.output
    return outcome.error.message
