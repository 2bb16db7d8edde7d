"""``@`` completion over the project and the configured reference folders (``NAME:path``)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.tui.file_index import mention
from agent_tui.tui.mention_index import MentionIndex


def _tree(root: Path, *files: str) -> Path:
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    return root


async def test_a_reference_name_is_offered_first_and_its_files_once_it_is_typed(tmp_path: Path) -> None:
    project = _tree(tmp_path / "project", "docs/local.md", "src/app.py")
    docs = _tree(tmp_path / "docs-checkout", "api/users.md", "guide.md")
    index = MentionIndex(project, {"docs": docs, "spec": tmp_path / "spec"})
    found = await index.search("do")
    assert found[0] == "docs:" and "spec:" not in found and "docs/local.md" in found
    assert "docs:api/users.md" in await index.search("docs:users")
    assert await index.search("docs:app") == []  # the project's files are not the reference's
    assert "src/app.py" in await index.search("app")


def test_accepting_a_reference_name_leaves_the_cursor_after_the_colon() -> None:
    assert mention("docs:") == "@docs:"
    assert mention("docs:api/users.md") == "@docs:api/users.md "
