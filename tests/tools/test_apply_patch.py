from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.apply_patch.matcher import seek
from agent_tui.tools.apply_patch.parser import AddFile, DeleteFile, PatchError, UpdateFile, parse_patch
from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.asks import PermissionDecision
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.kinds import Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker

from .conftest import error_message, gate_for, invoke_tool, output_text


async def patch(scope: ToolScope, text: str) -> ToolOutcome:
    return await invoke_tool(APPLY_PATCH, scope, patch=text)


def wrap(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


ok, failed = output_text, error_message


# ---------------------------------------------------------------- parser


def test_parses_every_operation() -> None:
    ops = parse_patch(
        wrap(
            "*** Add File: a.txt",
            "+one",
            "+two",
            "*** Delete File: b.txt",
            "*** Update File: c.txt",
            "*** Move to: d/c.txt",
            "@@ def f():",
            " keep",
            "-old",
            "+new",
            "*** End of File",
        )
    )
    assert ops[0] == AddFile("a.txt", "one\ntwo\n")
    assert ops[1] == DeleteFile("b.txt")
    assert isinstance(ops[2], UpdateFile) and ops[2].move_to == "d/c.txt"
    chunk = ops[2].chunks[0]
    assert (chunk.context, chunk.old, chunk.new, chunk.end_of_file) == (
        "def f():",
        ["keep", "old"],
        ["keep", "new"],
        True,
    )


@pytest.mark.parametrize(
    "text",
    [
        "<<'EOF'\n" + wrap("*** Delete File: x") + "EOF\n",
        '<<"EOF"\n' + wrap("*** Delete File: x") + "EOF",
        "apply_patch <<EOF\n" + wrap("*** Delete File: x") + "EOF\n",
        "```diff\n" + wrap("*** Delete File: x") + "```\n",
        "  *** Begin Patch  \r\n  *** Delete File: x  \r\n *** End Patch \r\n\n\n",
    ],
)
def test_heredoc_wrapper_and_padding_are_tolerated(text: str) -> None:
    assert parse_patch(text) == [DeleteFile("x")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("*** Delete File: x\n*** End Patch", "first line of the patch must be '*** Begin Patch'"),
        ("*** Begin Patch\n*** Delete File: x\n", "last line of the patch must be '*** End Patch'"),
        (wrap(), "no file operations"),
        (wrap("*** Update File: f"), "Update File hunk for 'f' is empty"),
        (wrap("*** Frobnicate File: foo"), "Line 2: '*** Frobnicate File: foo' is not a valid hunk header"),
        (wrap("*** Update File: f", "@@", "?bad"), "Line 4: '?bad' in 'f' is not a change line"),
        (wrap("*** Update File: f", "*** End of File"), "must follow the lines of a change"),
        (wrap("*** Add File:   "), "the file path is missing"),
    ],
)
def test_invalid_patches(text: str, message: str) -> None:
    with pytest.raises(PatchError) as raised:
        parse_patch(text)
    assert message in str(raised.value)


# ---------------------------------------------------------------- matcher


def test_fuzzy_levels_in_order() -> None:
    lines = ["a  ", "  b", "x — “quoted” y", "a"]
    assert seek(lines, ["a"], 0) == 3  # exact beats the trailing-space match at 0
    assert seek(lines, ["a", "b"], 0) == 0  # found only once surrounding whitespace is ignored
    assert seek(["  a", "x", "a  "], ["a"], 0) == 2  # a looser level's earlier match loses to a stricter one's
    assert seek(["“a”", "x", '"a"  '], ['"a"'], 0) == 2  # punctuation is the last level tried
    assert seek(lines, ["a", "  b"], 0) == 0  # trailing whitespace ignored
    assert seek(lines, ["b"], 0) == 1  # surrounding whitespace ignored
    assert seek(lines, ['x - "quoted" y'], 0) == 2  # unicode punctuation normalised
    assert seek(lines, ["x\u00a0— “quoted” y"], 0) == 2
    assert seek(lines, ["zzz"], 0) is None
    assert seek(["a", "b", "a"], ["a"], 0, end_of_file=True) == 2


# ---------------------------------------------------------------- applying


async def test_add_update_delete_move_with_summary(workdir: Path, scope: ToolScope) -> None:
    (workdir / "mod.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    (workdir / "gone.txt").write_text("bye\n")
    (workdir / "old.txt").write_text("x\n")
    text = ok(
        await patch(
            scope,
            wrap(
                "*** Add File: pkg/new.py",
                "+print('hi')",
                "*** Update File: mod.py",
                "@@ def g():",
                "-    return 2",
                "+    return 3",
                "*** Delete File: gone.txt",
                "*** Update File: old.txt",
                "*** Move to: moved/new.txt",
                "-x",
                "+y",
            ),
        )
    )
    assert text.splitlines() == [
        "Success. Updated the following files:",
        "A pkg/new.py",
        "M mod.py",
        "D gone.txt",
        "M moved/new.txt",
    ]
    assert (workdir / "pkg/new.py").read_text() == "print('hi')\n"
    assert (workdir / "mod.py").read_text() == "def f():\n    return 1\n\ndef g():\n    return 3\n"
    assert not (workdir / "gone.txt").exists() and not (workdir / "old.txt").exists()
    assert (workdir / "moved/new.txt").read_text() == "y\n"


async def test_fuzzy_match_applies_and_keeps_other_lines(workdir: Path, scope: ToolScope) -> None:
    (workdir / "f.txt").write_text("alpha   \n\tbeta\nsay “hi” — now\n")
    ok(await patch(scope, wrap("*** Update File: f.txt", " alpha", "-beta", "+BETA", '-say "hi" - now', "+said")))
    assert (workdir / "f.txt").read_text() == "alpha   \nBETA\nsaid\n"


async def test_line_endings_are_preserved(workdir: Path, scope: ToolScope) -> None:
    (workdir / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (workdir / "mixed.txt").write_bytes(b"a\r\nb\nc\r\nd\r\n")
    (workdir / "bom.txt").write_bytes("\ufeffx\r\n".encode())
    ok(
        await patch(
            scope,
            wrap(
                "*** Update File: crlf.txt",
                " one",
                "-two",
                "+TWO",
                "+two and a half",
                "*** Update File: mixed.txt",
                " b",
                "-c",
                "+C",
                "*** Update File: bom.txt",
                "-x",
                "+y",
            ),
        )
    )
    assert (workdir / "crlf.txt").read_bytes() == b"one\r\nTWO\r\ntwo and a half\r\nthree\r\n"
    assert (workdir / "mixed.txt").read_bytes() == b"a\r\nb\nC\r\nd\r\n"
    assert (workdir / "bom.txt").read_bytes() == "\ufeffy\r\n".encode()


async def test_pure_addition_after_file_without_final_newline(workdir: Path, scope: ToolScope) -> None:
    (workdir / "n.txt").write_text("last")
    ok(await patch(scope, wrap("*** Update File: n.txt", "@@", "+more")))
    assert (workdir / "n.txt").read_text() == "last\nmore\n"


async def test_add_then_update_same_file_in_one_patch(workdir: Path, scope: ToolScope) -> None:
    ok(await patch(scope, wrap("*** Add File: n.txt", "+a", "*** Update File: n.txt", "-a", "+b")))
    assert (workdir / "n.txt").read_text() == "b\n"


async def test_nothing_is_written_when_the_first_verification_fails(workdir: Path, scope: ToolScope) -> None:
    (workdir / "a.txt").write_text("a\n")
    message = failed(await patch(scope, wrap("*** Update File: a.txt", "-zzz", "+y", "*** Add File: b.txt", "+b")))
    assert message.startswith("apply_patch failed: Update File a.txt: Failed to find the expected lines in a.txt:\nzzz")
    assert message.endswith("No files were changed.")
    assert (workdir / "a.txt").read_text() == "a\n" and not (workdir / "b.txt").exists()


async def test_a_later_preflight_failure_writes_nothing(workdir: Path, scope: ToolScope) -> None:
    """Reference 001 preflights every update/delete target before the first write."""
    (workdir / "a.txt").write_text("a\n")
    message = failed(
        await patch(
            scope,
            wrap(
                "*** Update File: a.txt",
                "-a",
                "+A",
                "*** Delete File: missing.txt",
                "*** Add File: later.txt",
                "+x",
            ),
        )
    )
    assert "Delete File missing.txt: Failed to delete missing.txt: no such file" in message
    assert message.endswith("No files were changed.")
    assert (workdir / "a.txt").read_text() == "a\n" and not (workdir / "later.txt").exists()


@pytest.mark.parametrize(
    ("late", "reason"),
    [
        (("*** Update File: a.txt", "-not there", "+x"), "Failed to find the expected lines in a.txt"),
        (("*** Update File: missing.txt", "-a", "+b"), "Failed to update missing.txt: no such file"),
        (("*** Delete File: missing.txt",), "Failed to delete missing.txt: no such file"),
    ],
    ids=["context-not-found", "update-missing", "delete-missing"],
)
async def test_a_failure_anywhere_in_the_patch_writes_nothing(
    workdir: Path, scope: ToolScope, late: tuple[str, ...], reason: str
) -> None:
    """Earlier adds, updates, moves and deletes all wait for the whole patch to verify."""
    (workdir / "a.txt").write_text("a\n")
    (workdir / "gone.txt").write_text("g\n")
    (workdir / "old.txt").write_text("o\n")
    message = failed(
        await patch(
            scope,
            wrap(
                "*** Add File: new.txt",
                "+n",
                "*** Delete File: gone.txt",
                "*** Update File: old.txt",
                "*** Move to: moved.txt",
                "-o",
                "+O",
                *late,
            ),
        )
    )
    assert reason in message and message.endswith("No files were changed.")
    assert sorted(p.name for p in workdir.iterdir() if p.is_file()) == ["a.txt", "gone.txt", "old.txt"]
    assert (workdir / "a.txt").read_text() == "a\n" and (workdir / "old.txt").read_text() == "o\n"


async def test_delete_of_a_symlink_removes_the_link(workdir: Path, scope: ToolScope) -> None:
    (workdir.parent / "outside.txt").write_text("keep\n")
    (workdir / "real.txt").write_text("real\n")
    (workdir / "in-link").symlink_to("real.txt")
    (workdir / "out-link").symlink_to(workdir.parent / "outside.txt")
    (workdir / "dangling").symlink_to("nowhere")
    text = ok(
        await patch(scope, wrap("*** Delete File: in-link", "*** Delete File: out-link", "*** Delete File: dangling"))
    )
    assert text.splitlines()[1:] == ["D in-link", "D out-link", "D dangling"]
    assert (workdir / "real.txt").read_text() == "real\n" and (workdir.parent / "outside.txt").read_text() == "keep\n"
    assert not any(p.is_symlink() for p in workdir.iterdir())
    (workdir / "out-link").symlink_to(workdir.parent / "outside.txt")
    message = failed(await patch(scope, wrap("*** Update File: out-link", "-keep", "+changed")))
    assert "goes through a symlink" in message and (workdir.parent / "outside.txt").read_text() == "keep\n"


async def test_resolution_errors_come_before_any_write(workdir: Path, scope: ToolScope) -> None:
    message = failed(await patch(scope, wrap("*** Add File: created.txt", "+x", "*** Delete File: ../x")))
    assert "escapes the session location" in message
    assert not (workdir / "created.txt").exists()


async def test_a_file_where_a_directory_is_needed_fails_verification(workdir: Path, scope: ToolScope) -> None:
    (workdir / "blocker").write_text("a file where a directory is needed\n")
    message = failed(await patch(scope, wrap("*** Add File: blocker/inner.txt", "+2")))
    assert message.startswith("apply_patch failed: Add File blocker/inner.txt: Failed to write blocker/inner.txt:")
    assert "is not a directory" in message and "No files were changed." in message


async def test_write_failure_midway_is_reported(workdir: Path, scope: ToolScope) -> None:
    (workdir / "locked").mkdir()
    (workdir / "locked" / "f.txt").write_text("a\n")
    # The directory becomes read-only between verification and writing: os-level failure midway.
    from agent_tui.tools.apply_patch import applier

    steps_written: list[str] = []
    real_write = applier.write_step

    def write_then_break(step: applier.Step) -> None:
        real_write(step)
        steps_written.append(step.shown)
        (workdir / "locked" / "f.txt").unlink()

    applier.write_step = write_then_break  # type: ignore[assignment]
    try:
        message = failed(await patch(scope, wrap("*** Add File: first.txt", "+1", "*** Delete File: locked/f.txt")))
    finally:
        applier.write_step = real_write  # type: ignore[assignment]
    assert steps_written == ["first.txt"]
    assert "Delete File locked/f.txt" in message and "NOT rolled back:\nA first.txt" in message
    assert (workdir / "first.txt").read_text() == "1\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (("*** Delete File: ../outside.txt",), "escapes the session location through '..'"),
        (("*** Add File: sub/../../x.txt", "+x"), "escapes the session location"),
        (("*** Delete File: link/outside.txt",), "goes through a symlink"),
        (("*** Delete File: dir",), "Failed to delete dir: it is a directory"),
        (("*** Update File: dir", "-a", "+b"), "Failed to update dir: it is a directory"),
        (("*** Add File: dir", "+b"), "Failed to add dir: it is a directory"),
        (("*** Delete File: nope.txt",), "Failed to delete nope.txt: no such file"),
        (("*** Update File: notes.txt", "@@ nowhere", "-a", "+b"), "Failed to find context 'nowhere'"),
        (("*** Update File: binary.bin", "-a", "+b"), "binary.bin is not UTF-8 text"),
    ],
)
async def test_bad_targets_leave_files_untouched(
    workdir: Path, scope: ToolScope, body: tuple[str, ...], message: str
) -> None:
    (workdir.parent / "outside.txt").write_text("keep\n")
    (workdir / "link").symlink_to(workdir.parent)
    (workdir / "dir").mkdir()
    (workdir / "notes.txt").write_text("a\n")
    (workdir / "binary.bin").write_bytes(b"\xff\xfe\n")
    before = {p: p.read_bytes() for p in workdir.rglob("*") if p.is_file()}
    assert message in failed(await patch(scope, wrap(*body, "*** Add File: created.txt", "+x")))
    assert {p: p.read_bytes() for p in workdir.rglob("*") if p.is_file()} == before
    assert (workdir.parent / "outside.txt").read_text() == "keep\n"


async def test_one_ask_for_the_batch_plus_external_directories(workdir: Path, make_scope, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (workdir / "a.txt").write_text("a\n")
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ONCE))
    scope = make_scope(gate=gate_for(workdir, asker))
    text = wrap(
        "*** Update File: a.txt",
        "-a",
        "+b",
        "*** Add File: b.txt",
        "+b",
        f"*** Add File: {outside}/x.txt",
        "+x",
        f"*** Add File: {outside}/y.txt",
        "+y",
    )
    ok(await patch(scope, text))
    asked = [(r.action, r.resources) for r in asker.requests]
    out = outside.resolve().as_posix()
    assert asked == [("external_directory", [out]), ("edit", ["a.txt", "b.txt", f"{out}/x.txt", f"{out}/y.txt"])]
    assert asker.requests[1].detail["diff"] == text
    assert (outside / "x.txt").read_text() == "x\n"


async def test_rejected_edit_writes_nothing_and_parse_errors_ask_nothing(workdir: Path, make_scope) -> None:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.REJECT))
    scope = make_scope(gate=gate_for(workdir, asker))
    rejected = await patch(scope, wrap("*** Add File: a.txt", "+a"))
    assert rejected.error is not None and rejected.error.type == "permission.rejected" and rejected.stop_run
    assert not (workdir / "a.txt").exists()
    bad = await patch(scope, wrap("*** Add File: a.txt", "+a", "*** Bogus", "x"))
    assert bad.error is not None and bad.error.type == "tool.execution" and len(asker.requests) == 1


async def test_deny_rule_for_some_paths(workdir: Path, make_scope) -> None:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ONCE))
    rules = [
        PermissionRule(action="edit", pattern="*", effect=Effect.ALLOW),
        PermissionRule(action="edit", pattern="secrets/*", effect=Effect.DENY),
    ]
    scope = make_scope(gate=gate_for(workdir, asker, rules))
    denied = await patch(scope, wrap("*** Add File: ok.txt", "+a", "*** Add File: secrets/key", "+k"))
    assert denied.error is not None and denied.error.type == "permission.denied" and not denied.stop_run
    assert not (workdir / "ok.txt").exists()
    ok(await patch(scope, wrap("*** Add File: ok.txt", "+a")))
    assert asker.requests == []
