"""The restore plan read from the log: every call that may have changed files is covered or named, never passed over."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.history.restore_plan import NO_SNAPSHOT, restore_plan
from agent_tui.core.log import events as ev
from agent_tui.vocab.error_info import ErrorInfo

TOOLS = ("bash", "apply_patch", "mcp__files__write", "read")
OUTCOMES = ("git", "pre", "error", "none")
PROJECT = Path("/work/project")
PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch"

step = st.tuples(st.sampled_from(TOOLS), st.sampled_from(OUTCOMES), st.booleans())


def _events(said_before: str | None, steps: list[tuple[str, str, bool]]) -> list[tuple[bool, ev.DurableEvent]]:
    out: list[tuple[bool, ev.DurableEvent]] = []
    if said_before is not None:
        out.append((False, ev.WorkspaceSnapshotted(assistant_message_id="msg_a0", call_id="call_0", error=said_before)))
    for n, (tool, outcome, rejected) in enumerate(steps, 1):
        call = f"call_{n}"
        arguments = {"patch": PATCH} if tool == "apply_patch" else {"command": f"echo {n} > f{n}"}
        out.append((True, ev.ToolCalled(assistant_message_id="msg_a1", call_id=call, name=tool, input=arguments)))
        if tool != "read" and outcome != "none":
            snapshot = {"git": f"tree{n}", "pre": f"pre:{n}", "error": None}[outcome]
            out.append(
                (
                    True,
                    ev.WorkspaceSnapshotted(
                        assistant_message_id="msg_a1",
                        call_id=call,
                        snapshot_id=snapshot,
                        error=f"broken {n}" if snapshot is None else None,
                    ),
                )
            )
        if rejected:
            out.append(
                (
                    True,
                    ev.ToolFailed(
                        assistant_message_id="msg_a1",
                        call_id=call,
                        error=ErrorInfo(type="permission.rejected", message="no"),
                    ),
                )
            )
    return out


def _covered(steps: list[tuple[str, str, bool]]) -> set[str]:
    """The oracle, one call after another: with git, any git snapshot so far; without, the call's own pre-image."""
    kinds = [outcome for tool, outcome, _ in steps if tool != "read" and outcome in ("git", "pre")]
    git = bool(kinds) and kinds[0] == "git"
    covered, seen_git = set(), False
    for n, (tool, outcome, _) in enumerate(steps, 1):
        seen_git = seen_git or (tool != "read" and outcome == "git")
        if (git and seen_git) or (not git and tool != "read" and outcome == "pre"):
            covered.add(f"call_{n}")
    return covered


@settings(max_examples=300, deadline=None)
@given(said_before=st.none() | st.just("git is not installed"), steps=st.lists(step, max_size=8))
def test_every_call_that_may_have_changed_files_is_covered_or_named_with_a_reason(
    said_before: str | None, steps: list[tuple[str, str, bool]]
) -> None:
    found = restore_plan(_events(said_before, steps), PROJECT)
    ran = {f"call_{n}" for n, (tool, _, rejected) in enumerate(steps, 1) if tool != "read" and not rejected}
    named = {u.call_id for u in found.unrestorable}
    assert named == ran - _covered(steps) and found.outside == [], "these commands name no outside path"
    assert all(u.why for u in found.unrestorable)
    if found.refusal() is None and found.point is None:
        assert not ran, "a rewind that goes ahead with nothing to restore must mean nothing could have changed"
    note = found.note() or ""
    if ran:
        assert "no tool that may change files ran" not in note
    for u in found.unrestorable:
        assert u.line() in (found.refusal() or note), "whatever is not restored is said, refused or noted"


def test_the_reason_of_an_uncovered_call_is_its_own_then_the_one_said_before_then_none_was_taken() -> None:
    steps = [("bash", "error", False), ("bash", "none", False)]
    own, later = restore_plan(_events(None, steps), PROJECT).unrestorable
    assert (own.why, later.why) == ("broken 1", "broken 1")
    (lone,) = restore_plan(
        _events("git is not installed", [("mcp__files__write", "none", False)]), PROJECT
    ).unrestorable
    assert lone.why == "git is not installed" and lone.tool == "mcp__files__write"
    (unknown,) = restore_plan(_events(None, [("apply_patch", "none", False)]), PROJECT).unrestorable
    assert unknown.why == NO_SNAPSHOT and unknown.files == ["a.txt"]
    assert unknown.line() == f"apply_patch call_1 (a.txt): {NO_SNAPSHOT}"


def test_a_covered_bash_call_naming_paths_outside_the_directory_is_named_but_never_refused() -> None:
    command = "cat /etc/hostname > /tmp/elsewhere/out.txt && echo ok > /work/project/in.txt && rm ../up.txt"
    events: list[tuple[bool, ev.DurableEvent]] = [
        (True, ev.ToolCalled(assistant_message_id="msg_a1", call_id="call_1", name="bash", input={"command": command})),
        (True, ev.WorkspaceSnapshotted(assistant_message_id="msg_a1", call_id="call_1", snapshot_id="tree1")),
    ]
    found = restore_plan(events, PROJECT)
    assert found.unrestorable == [] and found.refusal() is None and found.point == ["tree1"]
    (outside,) = found.outside
    assert outside.files == ["/etc/hostname", "/tmp/elsewhere/out.txt"]
    assert found.note() == (
        "not restored: bash call_1 (/etc/hostname, /tmp/elsewhere/out.txt): outside the "
        "session's directory /work/project; a rewind restores only files inside it"
    )
