"""``agent-tui permissions list|revoke`` as a person runs it, over a real store file whose approvals
were saved the way the TUI saves them: a ``permission.replied`` "always" in a session's log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.api import events as ev
from agent_tui.core.api import paths
from agent_tui.core.store.store import Store
from agent_tui.vocab.clock import ManualClock
from agent_tui.vocab.kinds import PermissionReply


def agent_tui(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )


async def save_always(project: Path, sid: str, action: str, save: list[str], at: int) -> None:
    """What answering "always" to an ask leaves in the store."""
    store = await Store.open(paths.database_path(), clock=ManualClock(at))
    try:
        await store.publish(sid, ev.SessionCreated(location=str(project), project_root=str(project)))
        request = f"per_{sid}_{action}"
        await store.publish(sid, ev.PermissionAsked(request_id=request, action=action, resources=save, save=save))
        await store.publish(sid, ev.PermissionReplied(request_id=request, reply=PermissionReply.ALWAYS))
    finally:
        await store.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


def listed(project: Path) -> list[tuple[str, str]]:
    out = agent_tui("permissions", "list", "--json", "--project", str(project), cwd=project.parent)
    assert out.returncode == 0, out.stderr
    return [(row["action"], row["pattern"]) for row in map(json.loads, out.stdout.splitlines())]


async def test_saved_approvals_are_listed_in_words(project: Path) -> None:
    await save_always(project, "ses_a", "bash", ["git status *", "make *"], 1_000)
    await save_always(project, "ses_b", "edit", ["src/*"], 2_000)
    out = agent_tui("permissions", "list", cwd=project / "src")  # any directory of the project
    assert out.returncode == 0, out.stderr
    assert f"saved approvals for {project}" in out.stdout
    assert "commands matching `git status *`" in out.stdout
    assert "edits to src/*" in out.stdout
    assert listed(project) == [("bash", "git status *"), ("bash", "make *"), ("edit", "src/*")]


async def test_a_revoked_approval_stays_revoked_through_a_rebuild_until_saved_again(project: Path) -> None:
    await save_always(project, "ses_a", "bash", ["git status *", "make *"], 1_000)
    out = agent_tui("permissions", "revoke", "bash", "make *", cwd=project)
    assert (out.returncode, out.stdout) == (0, "revoked: bash make *\n"), out.stderr
    assert listed(project) == [("bash", "git status *")]
    assert agent_tui("db", "rebuild", cwd=project).returncode == 0  # the grant is projected again from the log
    assert listed(project) == [("bash", "git status *")]
    await save_always(project, "ses_later", "bash", ["make *"], 10**13)  # a later "always" counts again
    assert listed(project) == [("bash", "git status *"), ("bash", "make *")]


async def test_revoke_all_and_clear_refusals(project: Path) -> None:
    await save_always(project, "ses_a", "bash", ["git status *"], 1_000)
    other = project.parent / "other"
    other.mkdir()
    await save_always(other, "ses_o", "bash", ["ls *"], 1_000)
    unknown = agent_tui("permissions", "revoke", "bash", "rm *", cwd=project)
    assert unknown.returncode == 1
    assert "no saved approval bash 'rm *'" in unknown.stderr
    assert agent_tui("permissions", "revoke", cwd=project).returncode == 1  # neither ACTION nor --all
    assert "needs ACTION PATTERN, or --all" in agent_tui("permissions", "revoke", cwd=project).stderr
    assert agent_tui("permissions", "revoke", "--all", cwd=project).returncode == 0
    assert listed(project) == []
    assert listed(other) == [("bash", "ls *")]  # another project's approvals are its own
    assert "no saved approvals" in agent_tui("permissions", "list", cwd=project).stdout
