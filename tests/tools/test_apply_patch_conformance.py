"""The Codex apply_patch conformance suite, run as it is.

The suite lives in ``conformance/codex-apply-patch/`` (a byte-for-byte copy of
``../shared/conformance/codex-apply-patch/`` so CI, which clones this repo
alone, has it). When the shared folder exists, the copy must be identical.

Scenario 015 is where this project departs from upstream (the suite's README
says why). Reference 001, "Current Tool Registry Slice": apply_patch "preflights
approved update/delete targets before committing operations sequentially. A
later commit-time failure leaves earlier operations applied and returns an
explicit partial-application report." 015's update of a missing file fails that
preflight, so the patch changes nothing and says so, where upstream keeps the
earlier add.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.permissions import AllowAll
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.scope import ToolScope

SUITE = Path(__file__).parent / "conformance" / "codex-apply-patch"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "codex-apply-patch"
SCENARIOS = sorted(p for p in (SUITE / "scenarios").iterdir() if p.is_dir())


PREFLIGHT_DEPARTURES = {"015_failure_after_partial_success_leaves_changes"}
"""Upstream keeps the add that precedes the failing update; the spec writes nothing."""


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and directory (None) below ``root``, by relative path."""
    if not root.exists():
        return {}
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in root.rglob("*")}


def _rejected() -> set[str]:
    """Scenario names whose expected outcome in the README table is 'rejected'."""
    rows = re.findall(r"^\| (\d{3}_\w+) \| .* \| (.*) \|$", (SUITE / "README.md").read_text(), re.M)
    return {name for name, outcome in rows if outcome.startswith("rejected")}


SUITE_SHA256 = "96f2f1c89495ab45828201903462b1640b920c61f5f02da944f7993a25e7a3ef"
"""The copy's digest (paths and bytes), so a clone without ``../shared`` (CI) still notices an edit.
Recopy the suite from ``../shared`` and update this together, never one alone."""


def _digest(tree: dict[str, bytes | None]) -> str:
    h = hashlib.sha256()
    for rel in sorted(tree):
        h.update(rel.encode() + b"\0" + (tree[rel] if tree[rel] is not None else b"<dir>") + b"\0")
    return h.hexdigest()


def test_copy_is_identical_to_shared_suite() -> None:
    assert len(SCENARIOS) == 23
    assert _digest(_tree(SUITE)) == SUITE_SHA256
    if SHARED.exists():
        assert _tree(SUITE) == _tree(SHARED)


def test_readme_names_eight_rejections() -> None:
    assert sorted(_rejected()) == [
        "005_rejects_empty_patch",
        "006_rejects_missing_context",
        "007_rejects_missing_file_delete",
        "008_rejects_empty_update_hunk",
        "009_requires_existing_file_for_update",
        "012_delete_directory_fails",
        "013_rejects_invalid_hunk_header",
        "015_failure_after_partial_success_leaves_changes",
    ]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
async def test_scenario(scenario: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    if (scenario / "input").exists():
        shutil.copytree(scenario / "input", work)
    else:
        work.mkdir()
    registry = ToolRegistry(work)
    registry.register(APPLY_PATCH)
    scope = ToolScope(location=work, project_root=work, gate=AllowAll(), spill_dir=tmp_path / "spill")
    outcome = await registry.invoke("apply_patch", {"patch": (scenario / "patch.txt").read_text()}, scope)
    if scenario.name in _rejected():
        assert outcome.error is not None, outcome.output
        assert outcome.error.type == "tool.execution"
    else:
        assert outcome.error is None, outcome.error
    if scenario.name in PREFLIGHT_DEPARTURES:
        assert outcome.error is not None and outcome.error.message.endswith("No files were changed.")
        assert _tree(work) == {}
    else:
        assert _tree(work) == _tree(scenario / "expected")
