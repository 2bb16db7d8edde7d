"""``NAME:path`` in a reference folder: ``read`` opens it with the usual refusals, ``apply_patch``
refuses it by name, and a name that is no reference is an ordinary relative path."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.asks import PermissionDecision
from agent_tui.tools.read import READ
from agent_tui.tools.references import split_reference
from agent_tui.tools.scope import ToolScope
from agent_tui.vocab.kinds import Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker

from .conftest import error_message, gate_for, invoke_tool, output_text


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A sibling checkout outside the project, with one file and a secret beside it."""
    folder = tmp_path / "sibling-docs"
    (folder / "guide").mkdir(parents=True)
    (folder / "guide" / "setup.md").write_text("Install with make.\n")
    (tmp_path / "secret.txt").write_text("token\n")
    return folder


@pytest.fixture
def ref_scope(make_scope: Callable[..., ToolScope], docs: Path) -> ToolScope:
    return make_scope(references={"docs": docs})


async def test_read_opens_a_path_in_a_reference_and_names_it_by_reference(ref_scope: ToolScope) -> None:
    outcome = await invoke_tool(READ, ref_scope, path="docs:guide/setup.md")
    assert "     1\tInstall with make." in output_text(outcome)
    assert outcome.output is not None and outcome.output.data["path"] == "docs:guide/setup.md"


async def test_a_bare_reference_name_lists_its_folder(ref_scope: ToolScope) -> None:
    outcome = await invoke_tool(READ, ref_scope, path="docs:")
    assert output_text(outcome).splitlines()[0] == "guide/"


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("docs:../secret.txt", "escapes the reference folder docs through '..'"),
        ("docs:/etc/hostname", "Absolute paths are not allowed"),
        ("docs:nope.md", "File not found: 'nope.md' (relative to the reference folder docs)"),
        ("docs:link/secret.txt", "outside the reference folder docs"),
    ],
)
async def test_read_refuses_ways_out_of_a_reference(ref_scope: ToolScope, docs: Path, raw: str, says: str) -> None:
    os.symlink(docs.parent, docs / "link")
    assert says in error_message(await invoke_tool(READ, ref_scope, path=raw))


async def test_a_reference_folder_that_is_gone_is_named(make_scope: Callable[..., ToolScope], tmp_path: Path) -> None:
    scope = make_scope(references={"docs": tmp_path / "gone"})
    assert "The reference folder docs" in error_message(await invoke_tool(READ, scope, path="docs:x.md"))


async def test_read_rules_match_a_reference_path_by_its_name(
    make_scope: Callable[..., ToolScope], docs: Path, workdir: Path
) -> None:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ONCE))
    rules = [PermissionRule(action="read", pattern="docs:*", effect=Effect.ASK)]
    scope = make_scope(gate=gate_for(workdir, asker, rules), references={"docs": docs})
    assert "Install" in output_text(await invoke_tool(READ, scope, path="docs:guide/setup.md"))
    assert [request.resources for request in asker.requests] == [["docs:guide/setup.md"]]


async def test_apply_patch_refuses_a_reference_path_and_writes_nothing(
    ref_scope: ToolScope, workdir: Path, docs: Path
) -> None:
    patch = "*** Begin Patch\n*** Add File: docs:guide/new.md\n+hello\n*** End Patch"
    message = error_message(await invoke_tool(APPLY_PATCH, ref_scope, patch=patch))
    assert "reference folder docs" in message and "only reads" in message
    assert not (docs / "guide" / "new.md").exists() and list(workdir.iterdir()) == [workdir / ".git"]


async def test_a_prefix_that_names_no_reference_is_a_plain_relative_path(
    make_scope: Callable[..., ToolScope], workdir: Path
) -> None:
    (workdir / "notes:today.md").write_text("plain\n")
    outcome = await invoke_tool(READ, make_scope(references={"docs": workdir}), path="notes:today.md")
    assert "plain" in output_text(outcome)


def test_split_reference_needs_a_configured_name_and_a_name_shaped_prefix() -> None:
    refs = {"docs": Path("/x"), "a-b_1": Path("/y")}
    assert split_reference("docs:a/b", refs) == ("docs", "a/b")
    assert split_reference("a-b_1:", refs) == ("a-b_1", ".")
    assert split_reference("other:a", refs) is None
    assert split_reference("./docs:a", refs) is None
    assert split_reference("docs", refs) is None
