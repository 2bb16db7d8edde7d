"""The approval mode in the permission gate: which asks each mode lets through, and what it never lifts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.asks import NoApprovals, PermissionDecision
from agent_tui.tools.errors import AgentDenied, PermissionDenied
from agent_tui.tools.permissions import Guard, OwnCommandGate, PermissionGate, approval_covers
from agent_tui.vocab.kinds import ApprovalMode, Effect, PermissionReply, next_approval
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker

ASK, AUTO_EDIT, AUTO, FULL_AUTO = ApprovalMode.ASK, ApprovalMode.AUTO_EDIT, ApprovalMode.AUTO, ApprovalMode.FULL_AUTO
COMMAND = {"command": "ls /etc"}


@pytest.mark.parametrize(
    ("mode", "action", "resources", "detail", "sandboxed", "covered"),
    [
        (ASK, "edit", ["a.py"], None, True, False),
        (ASK, "read", ["a.py"], None, True, False),
        (AUTO_EDIT, "edit", ["src/a.py", "b.py"], None, False, True),
        (AUTO_EDIT, "read", ["a.py"], None, False, True),
        (AUTO_EDIT, "bash", ["ls"], COMMAND, True, False),
        (AUTO_EDIT, "edit", [".git/hooks/pre-commit"], None, False, False),  # git runs what .git holds
        (AUTO_EDIT, "edit", ["sub/.agent-tui/config.toml"], None, False, False),
        (AUTO_EDIT, "edit", ["/etc/passwd"], None, False, False),
        (AUTO_EDIT, "edit", ["../elsewhere.py"], None, False, False),
        (AUTO, "edit", ["a.py"], None, False, True),
        (AUTO, "bash", ["make"], COMMAND, True, True),
        (AUTO, "bash", ["make"], COMMAND, False, False),  # no sandbox confines it
        (AUTO, "external_directory", ["/etc"], COMMAND, True, True),  # a sandboxed command's workdir
        (AUTO, "external_directory", ["/etc"], {"diff": "..."}, True, False),  # an edit outside the project
        (AUTO, "outside_sandbox", ["make"], COMMAND, True, False),
        (AUTO, "mcp", ["srv/tool"], None, True, False),
        (FULL_AUTO, "outside_sandbox", ["make"], COMMAND, False, True),
        (FULL_AUTO, "mcp", ["srv/tool"], None, False, True),
    ],
)
def test_what_each_mode_covers(
    mode: ApprovalMode, action: str, resources: list[str], detail: dict | None, sandboxed: bool, covered: bool
) -> None:
    assert approval_covers(mode, action, resources, detail, sandboxed=sandboxed) is covered


def test_the_key_cycles_ask_auto_edit_auto_and_leaves_full_auto_for_ask() -> None:
    assert [next_approval(m) for m in (ASK, AUTO_EDIT, AUTO, FULL_AUTO)] == [AUTO_EDIT, AUTO, ASK, ASK]


def _gate(workdir: Path, mode: ApprovalMode, rules: list[PermissionRule] = (), guard: Guard | None = None) -> tuple:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ONCE))
    gate = PermissionGate(list(rules), NoApprovals(), asker, workdir, workdir, guard=guard, approval=lambda: mode)
    return gate, asker


async def test_the_gate_reads_the_mode_at_each_check(workdir: Path) -> None:
    mode = [ASK]
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ONCE))
    gate = PermissionGate([], NoApprovals(), asker, workdir, workdir, approval=lambda: mode[0])
    await gate.check("edit", ["a.py"])
    mode[0] = AUTO_EDIT
    await gate.check("edit", ["a.py"])
    assert len(asker.requests) == 1


async def test_deny_rules_and_the_agent_guard_win_in_full_auto(workdir: Path) -> None:
    deny = PermissionRule(action="edit", pattern="secret.txt", effect=Effect.DENY)
    gate, asker = _gate(workdir, FULL_AUTO, [deny])
    with pytest.raises(PermissionDenied):
        await gate.check("edit", ["secret.txt"])
    await gate.check("edit", ["open.txt"])
    guard = Guard("plan", (PermissionRule(action="edit", pattern="*", effect=Effect.DENY),))
    gate, asker = _gate(workdir, FULL_AUTO, guard=guard)
    with pytest.raises(AgentDenied):
        await gate.check("edit", ["open.txt"])
    assert asker.requests == []


async def test_the_users_own_command_is_never_asked_but_still_denied(workdir: Path) -> None:
    deny = PermissionRule(action="bash", pattern="rm *", effect=Effect.DENY)
    gate, asker = _gate(workdir, ASK, [deny])
    own = OwnCommandGate(gate)
    await own.check("bash", ["make build"])
    with pytest.raises(PermissionDenied):
        await own.check("bash", ["rm -rf build"])
    assert asker.requests == []


async def test_an_ask_rule_still_asks_short_of_full_auto(workdir: Path) -> None:
    ask_rule = PermissionRule(action="edit", pattern="secrets/*", effect=Effect.ASK)
    gate, asker = _gate(workdir, AUTO, [ask_rule])
    await gate.check("edit", ["src/a.py"])  # the default ask: the mode covers it
    assert asker.requests == []
    await gate.check("edit", ["src/a.py", "secrets/key.pem"])  # one piece an ask rule names: asked
    assert [r.resources for r in asker.requests] == [["src/a.py", "secrets/key.pem"]]
    gate, asker = _gate(workdir, FULL_AUTO, [ask_rule])
    await gate.check("edit", ["secrets/key.pem"])
    assert asker.requests == []
