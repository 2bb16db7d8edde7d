"""Rewind through the facade: real runs against the fake provider, real bash, real files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.history.rewind import RewindRefused, UnknownMessage
from agent_tui.core.host.snapshot_hook import NO_GIT, SNAPSHOTS_OFF
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.core.workspace.snapshots import SnapshotError
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.tools.sandbox import bwrap_path, unavailable_reason

from ..run.runner.conftest import settle, stored

PATCH = "*** Begin Patch\n*** Update File: patched.txt\n@@\n-old\n+new\n*** End Patch"
BASH = "echo made > made.txt && echo after > mod.txt && rm gone.txt && echo changed > build.log"


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(policy="allow", tools="all") as opened:
        yield opened


def _files(location: Path) -> dict[str, str]:
    return {
        p.relative_to(location).as_posix(): p.read_text()
        for p in sorted(location.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content)


async def _turn(runtime: Runtime, sid: str, text: str) -> str:
    receipt = await runtime.sessions.prompt(sid, text)
    await settle(runtime, sid)
    return receipt.input_id


@pytest.fixture
def location(workdir: Path) -> Path:
    (workdir / ".gitignore").write_text("*.log\n")
    for name, text in {
        "mod.txt": "before\n",
        "gone.txt": "bye\n",
        "patched.txt": "old\n",
        "keep.txt": "keep\n",
        "build.log": "ignored\n",
    }.items():
        (workdir / name).write_text(text)
    return workdir


async def test_rewind_both_brings_back_what_bash_and_apply_patch_changed_and_undo_redoes_it(
    runtime: Runtime, fake: FakeProvider, location: Path, projection_snapshot: Any
) -> None:
    fake.add(
        {"text": "hello"},
        {"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": BASH}}]},
        {"tool_calls": [{"id": "call_p", "name": "apply_patch", "arguments": {"patch": PATCH}}]},
        {"text": "changed four files"},
    )
    sid = (await runtime.sessions.create(location=location)).id
    await _turn(runtime, sid, "say hello")
    original = _files(location)
    second = await _turn(runtime, sid, "change the files")
    after = _files(location)
    assert after["made.txt"] == "made\n" and "gone.txt" not in after and after["patched.txt"] == "new\n"
    snapshots = [e for e in await stored(runtime, sid) if isinstance(e.event, ev.WorkspaceSnapshotted)]
    assert [s.event.call_id for s in snapshots] == ["call_b", "call_p"] and all(s.event.snapshot_id for s in snapshots)

    preview = await runtime.sessions.rewind_preview(sid, second)
    assert _files(location) == after, "a preview changes nothing"
    result = await runtime.sessions.rewind(sid, second, "both")

    expected = {("made.txt", "deleted"), ("mod.txt", "modified"), ("gone.txt", "created"), ("patched.txt", "modified")}
    assert {(c.path, c.change) for c in result.changed} == expected == {(c.path, c.change) for c in preview.changed}
    assert "-made" in preview.diff and "+old" in preview.diff and "+bye" in preview.diff
    assert _files(location) == {**original, "build.log": "changed\n"}, "ignored files are left as they are"
    assert result.prompt == "change the files"
    assert [m.kind for m in await runtime.sessions.messages(sid)] == ["user", "assistant"]
    assert all(m.id != second for m in await runtime.sessions.messages(sid))
    live = projection_snapshot(runtime.sessions.database)
    await runtime.sessions.rebuild()
    assert projection_snapshot(runtime.sessions.database) == live

    undone = await runtime.sessions.undo_rewind(sid)
    assert {(c.path, c.change) for c in undone.changed} == {
        ("made.txt", "created"),
        ("mod.txt", "modified"),
        ("gone.txt", "deleted"),
        ("patched.txt", "modified"),
    }
    assert _files(location) == after
    assert any(m.id == second for m in await runtime.sessions.messages(sid))
    live = projection_snapshot(runtime.sessions.database)
    await runtime.sessions.rebuild()
    assert projection_snapshot(runtime.sessions.database) == live
    with pytest.raises(RewindRefused, match="no rewind to undo"):
        await runtime.sessions.undo_rewind(sid)


async def test_conversation_rewind_sends_only_the_history_before_the_boundary(
    runtime: Runtime, fake: FakeProvider, location: Path
) -> None:
    fake.add({"text": "first answer"}, {"text": "second answer"}, {"text": "third answer"})
    sid = (await runtime.sessions.create(location=location)).id
    await _turn(runtime, sid, "first question")
    second = await _turn(runtime, sid, "second question")
    assert await runtime._store.checkpoint(sid) is not None
    await runtime.sessions.prompt(sid, "queued while idle", delivery="queue", resume=False)

    result = await runtime.sessions.rewind(sid, second, "conversation")
    assert result.changed == [] and result.prompt == "second question"
    assert await runtime.sessions.pending(sid) == [], "unpromoted input above the boundary is withdrawn"
    assert await runtime._store.checkpoint(sid) is None, "the instruction checkpoint is reset"

    await _turn(runtime, sid, "third question")
    texts = [_text(m.get("content")) for m in fake.accepted[-1].body["messages"] if m["role"] != "system"]
    assert texts == ["first question", "first answer", "third question"]
    log = await stored(runtime, sid)
    rewound = next(e.seq for e in log if isinstance(e.event, ev.SessionRewound))
    assert any(isinstance(e.event, ev.InstructionsBaselined) and e.seq > rewound for e in log)


async def test_rewind_refuses_bad_targets_and_changes_nothing(
    runtime: Runtime, fake: FakeProvider, location: Path
) -> None:
    fake.add({"text": "one"}, {"text": "two"})
    sid = (await runtime.sessions.create(location=location)).id
    other = (await runtime.sessions.create(location=location)).id
    await _turn(runtime, sid, "mine")
    theirs = await _turn(runtime, other, "theirs")
    head = await runtime._store.head_seq(sid)
    assistant = next(m.id for m in await runtime.sessions.messages(sid) if m.kind == "assistant")
    with pytest.raises(UnknownMessage, match="unknown message msg_nope in session"):
        await runtime.sessions.rewind(sid, "msg_nope")
    with pytest.raises(UnknownMessage, match=f"belongs to session {other}, not {sid}"):
        await runtime.sessions.rewind(sid, theirs)
    with pytest.raises(RewindRefused, match="is a assistant message; rewind to a prompt"):
        await runtime.sessions.rewind(sid, assistant)
    with pytest.raises(RewindRefused, match="no rewind to undo"):
        await runtime.sessions.undo_rewind(sid)
    assert await runtime._store.head_seq(sid) == head


async def test_a_missing_snapshot_store_refuses_the_file_rewind_and_keeps_everything(
    runtime: Runtime, fake: FakeProvider, location: Path
) -> None:
    import shutil

    fake.add({"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": BASH}}]}, {"text": "done"})
    sid = (await runtime.sessions.create(location=location)).id
    first = await _turn(runtime, sid, "change")
    after, head = _files(location), await runtime._store.head_seq(sid)
    shutil.rmtree(runtime.sessions.snapshots.git_dir(location))
    with pytest.raises(SnapshotError, match="is missing from the snapshot store"):
        await runtime.sessions.rewind(sid, first, "both")
    assert _files(location) == after and await runtime._store.head_seq(sid) == head


async def test_undo_is_refused_once_the_session_moved_on(runtime: Runtime, fake: FakeProvider, location: Path) -> None:
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    sid = (await runtime.sessions.create(location=location)).id
    await _turn(runtime, sid, "one")
    second = await _turn(runtime, sid, "two")
    await runtime.sessions.rewind(sid, second, "conversation")
    assert await runtime.sessions.can_undo_rewind(sid)
    await _turn(runtime, sid, "three")
    assert not await runtime.sessions.can_undo_rewind(sid)
    with pytest.raises(RewindRefused, match="moved on since its last rewind"):
        await runtime.sessions.undo_rewind(sid)


async def test_with_snapshots_off_a_files_rewind_is_refused_naming_the_call_and_nothing_changes(
    open_runtime: Any, fake: FakeProvider, location: Path
) -> None:
    fake.add(
        {"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": "echo after > mod.txt"}}]},
        {"text": "ok"},
    )
    async with await open_runtime(policy="allow", tools="all", cli={"snapshots": {"enabled": False}}) as runtime:
        sid = (await runtime.sessions.create(location=location)).id
        first = await _turn(runtime, sid, "run")
        assert (location / "mod.txt").read_text() == "after\n"
        taken = [e.event for e in await stored(runtime, sid) if isinstance(e.event, ev.WorkspaceSnapshotted)]
        assert [(t.snapshot_id, t.error) for t in taken] == [(None, SNAPSHOTS_OFF)], "no snapshot, and why, once"
        after, head = _files(location), await runtime._store.head_seq(sid)

        preview = await runtime.sessions.rewind_preview(sid, first)
        assert preview.changed == [] and [(u.tool, u.call_id) for u in preview.unrestorable] == [("bash", "call_b")]
        assert preview.refusal is not None and "snapshots are off" in preview.refusal
        for mode in ("files", "both"):
            with pytest.raises(RewindRefused) as refused:
                await runtime.sessions.rewind(sid, first, mode)
            message = str(refused.value)
            assert "bash call_b (`echo after > mod.txt`)" in message and "[snapshots] enabled = false" in message
            assert "nothing changed" not in message and "\n" not in message
        assert _files(location) == after and await runtime._store.head_seq(sid) == head
        result = await runtime.sessions.rewind(sid, first, "conversation")
        assert result.changed == [] and result.unrestorable == [] and result.note is None


async def test_a_snapshot_error_before_the_first_call_refuses_the_file_rewind_naming_the_call_and_why(
    runtime: Runtime, fake: FakeProvider, location: Path
) -> None:
    broken = runtime.sessions.snapshots.git_dir(location)
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("not a git directory\n")  # git init cannot make its snapshot store here
    fake.add(
        {"tool_calls": [{"id": "call_p", "name": "apply_patch", "arguments": {"patch": PATCH}}]},
        {"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": "rm gone.txt"}}]},
        {"text": "done"},
    )
    sid = (await runtime.sessions.create(location=location)).id
    first = await _turn(runtime, sid, "change")
    assert (location / "patched.txt").read_text() == "new\n" and not (location / "gone.txt").exists()
    after, head = _files(location), await runtime._store.head_seq(sid)
    with pytest.raises(RewindRefused) as refused:
        await runtime.sessions.rewind(sid, first, "files")
    message = str(refused.value)
    assert "apply_patch call_p (patched.txt): git init failed" in message
    assert "bash call_b (`rm gone.txt`): git init failed" in message, "the reason said once covers the later call"
    assert _files(location) == after and await runtime._store.head_seq(sid) == head


async def test_a_file_bash_wrote_outside_the_directory_is_named_not_passed_over(
    runtime: Runtime, fake: FakeProvider, location: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    command = f"echo after > mod.txt && echo out > {elsewhere}"
    fake.add({"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": command}}]}, {"text": "done"})
    sid = (await runtime.sessions.create(location=location)).id
    first = await _turn(runtime, sid, "change")
    assert elsewhere.read_text() == "out\n"
    result = await runtime.sessions.rewind(sid, first, "files")
    assert [(c.path, c.change) for c in result.changed] == [("mod.txt", "modified")]
    assert [(u.call_id, u.files) for u in result.unrestorable] == [("call_b", [str(elsewhere)])]
    assert result.note is not None and f"bash call_b ({elsewhere}): outside the session's directory" in result.note
    assert (location / "mod.txt").read_text() == "before\n" and elsewhere.read_text() == "out\n"


async def test_a_file_an_mcp_tool_wrote_is_snapshotted_and_a_rewind_brings_it_back(
    open_runtime: Any, fake: FakeProvider, location: Path
) -> None:
    import sys

    server = {
        "command": [sys.executable, str(Path(__file__).parents[2] / "fakes" / "mcp_writer.py")],
        "startup_timeout_s": 60,
    }
    write = {"path": "mod.txt", "text": "written by the server\n"}
    fake.add({"tool_calls": [{"id": "call_m", "name": "mcp__files__write", "arguments": write}]}, {"text": "done"})
    async with await open_runtime(policy="allow", tools="all", cli={"mcp": {"servers": {"files": server}}}) as runtime:
        sid = (await runtime.sessions.create(location=location)).id
        first = await runtime.sessions.prompt(sid, "write it")
        await settle(runtime, sid, timeout=60)
        assert (location / "mod.txt").read_text() == "written by the server\n", "the server process wrote it"
        taken = [e.event for e in await stored(runtime, sid) if isinstance(e.event, ev.WorkspaceSnapshotted)]
        assert [t.call_id for t in taken] == ["call_m"] and taken[0].snapshot_id

        result = await runtime.sessions.rewind(sid, first.input_id, "files")
        assert [(c.path, c.change) for c in result.changed] == [("mod.txt", "modified")]
        assert (location / "mod.txt").read_text() == "before\n"
        assert result.unrestorable == [] and result.note is None


async def test_without_git_apply_patch_pre_images_are_restored_and_the_session_says_so_once(
    runtime: Runtime, fake: FakeProvider, location: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import shutil

    bin_dir = tmp_path / "bin-without-git"
    bin_dir.mkdir()
    for tool in ("bash", "sh", "echo", "rm", "cat", "env"):
        found = shutil.which(tool)
        if found:
            os.symlink(found, bin_dir / tool)
    monkeypatch.setenv("PATH", str(bin_dir))
    add = (
        "*** Begin Patch\n*** Update File: patched.txt\n@@\n-old\n+new\n*** Add File: added.txt\n+fresh\n*** End Patch"
    )
    fake.add(
        {"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": "echo after > mod.txt"}}]},
        {"tool_calls": [{"id": "call_p", "name": "apply_patch", "arguments": {"patch": add}}]},
        {"text": "done"},
    )
    sid = (await runtime.sessions.create(location=location)).id
    first = await _turn(runtime, sid, "change without git")
    assert (location / "added.txt").exists() and (location / "mod.txt").read_text() == "after\n"
    taken = [e.event for e in await stored(runtime, sid) if isinstance(e.event, ev.WorkspaceSnapshotted)]
    assert [bool(e.error) for e in taken] == [True, False], "said once, then the patch's pre-images"
    assert "bash" in taken[0].error and taken[1].snapshot_id.startswith("pre:")

    preview = await runtime.sessions.rewind_preview(sid, first)
    result = await runtime.sessions.rewind(sid, first, "files")
    assert sorted((c.path, c.change) for c in result.changed) == [("added.txt", "deleted"), ("patched.txt", "modified")]
    assert [(u.tool, u.call_id, u.why) for u in result.unrestorable] == [("bash", "call_b", NO_GIT)]
    assert preview.unrestorable == result.unrestorable and preview.refusal is None
    assert result.note == f"not restored: bash call_b (`echo after > mod.txt`): {NO_GIT}"
    assert (location / "patched.txt").read_text() == "old\n" and not (location / "added.txt").exists()
    assert (location / "mod.txt").read_text() == "after\n", "what bash changed is not covered without git"
    await runtime.sessions.undo_rewind(sid)
    assert (location / "patched.txt").read_text() == "new\n" and (location / "added.txt").read_text() == "fresh\n"


@pytest.mark.skipif(bwrap_path() is None, reason=f"no sandbox here: {unavailable_reason()}")
async def test_files_a_sandboxed_bash_wrote_come_back_on_rewind_and_the_sandbox_kept_the_rest(
    runtime: Runtime, fake: FakeProvider, location: Path
) -> None:
    """The snapshot is taken outside the sandbox, before the call; what the confined command
    wrote inside the project is restored, and what it could not write never happened."""
    home = Path.home()
    forbidden = home / f"agent-tui-sandbox-probe-{location.name}"
    command = f"echo inside > made.txt && echo after > mod.txt; echo escaped > {forbidden}"
    fake.add({"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": command}}]}, {"text": "done"})
    sid = (await runtime.sessions.create(location=location)).id
    before = _files(location)
    turn = await _turn(runtime, sid, "write files")
    settled = [e.event for e in await stored(runtime, sid) if isinstance(e.event, ev.ToolSucceeded)]
    assert settled and settled[0].output.data["sandbox"] == "workspace-write", "bash ran in the sandbox"
    assert "Read-only file system" in settled[0].output.text or "Permission denied" in settled[0].output.text
    assert not forbidden.exists(), "the sandbox kept the write outside the workspace from happening"
    assert _files(location)["made.txt"] == "inside\n" and _files(location)["mod.txt"] == "after\n"

    result = await runtime.sessions.rewind(sid, turn, "both")

    assert {(c.path, c.change) for c in result.changed} == {("made.txt", "deleted"), ("mod.txt", "modified")}
    assert _files(location) == before
