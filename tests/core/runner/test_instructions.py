"""Instruction checkpoint: baseline before the first prompt, chronological updates after."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core import events as ev
from agent_tui.core.instructions import AGENTS, DuplicateSource, combine, agents_files
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, of_type, settle, stored


def _system(body: dict) -> str:
    return "\n".join(m["content"] if isinstance(m["content"], str) else str(m["content"])
                     for m in body["messages"] if m["role"] == "system")


def _user_texts(body: dict) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else " ".join(p.get("text", "") for p in m["content"])
            for m in body["messages"] if m["role"] == "user"]


async def test_agents_md_is_in_the_baseline_and_changes_arrive_as_updates(
    runtime: Runtime, fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    (agent_home / "AGENTS.md").write_text("Global rule: be brief.")
    (workdir / "AGENTS.md").write_text("Project rule: use tabs.")
    sub = workdir / "pkg"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("Package rule: no globals.")
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    sid = (await runtime.sessions.create(location=sub)).id
    await runtime.sessions.prompt(sid, "first")
    await settle(runtime, sid)
    system = _system(fake.accepted[0].body)
    assert system.index("Global rule") < system.index("Project rule") < system.index("Package rule")
    log = kinds(await stored(runtime, sid))
    assert log.index("instructions.baselined") < log.index("prompt.promoted")

    (workdir / "AGENTS.md").write_text("Project rule: use spaces.")
    await runtime.sessions.prompt(sid, "second")
    await settle(runtime, sid)
    assert _system(fake.accepted[1].body) == system  # the baseline never changes
    texts = _user_texts(fake.accepted[1].body)
    assert "use spaces" in texts[1] and "<system-reminder>" in texts[1] and texts[2] == "second"

    (sub / "AGENTS.md").unlink()
    (workdir / "AGENTS.md").unlink()
    (agent_home / "AGENTS.md").unlink()
    await runtime.sessions.prompt(sid, "third")
    await settle(runtime, sid)
    updates = of_type(await stored(runtime, sid), ev.InstructionsUpdated)
    assert len(updates) == 2 and "removed" in updates[-1].text


async def test_context_entries_flow_through_the_checkpoint(runtime: Runtime, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.context_put(sid, "api/ticket", {"id": 7})
    await runtime.sessions.prompt(sid, "first")
    await settle(runtime, sid)
    assert '"id": 7' in _system(fake.accepted[0].body)
    await runtime.sessions.context_put(sid, "api/ticket", {"id": 8})
    await runtime.sessions.prompt(sid, "second")
    await settle(runtime, sid)
    assert '"id": 8' in _user_texts(fake.accepted[1].body)[1]
    await runtime.sessions.context_delete(sid, "api/ticket")
    await runtime.sessions.prompt(sid, "third")
    await settle(runtime, sid)
    assert "api/ticket was removed" in of_type(await stored(runtime, sid), ev.InstructionsUpdated)[-1].text


async def test_no_update_when_nothing_changed(runtime: Runtime, fake: FakeProvider, workdir: Path) -> None:
    fake.add({"text": "one"}, {"text": "two"})
    sid = (await runtime.sessions.create(location=workdir)).id
    for text in ("a", "b"):
        await runtime.sessions.prompt(sid, text)
        await settle(runtime, sid)
    log = kinds(await stored(runtime, sid))
    assert log.count("instructions.baselined") == 1 and "instructions.updated" not in log


def test_project_files_can_be_disabled(workdir: Path, agent_home: Path) -> None:
    found = agents_files(workdir, workdir, environ={"AGENT_TUI_DISABLE_PROJECT_CONFIG": "1"})
    assert found == [agent_home / "AGENTS.md"]
    assert agents_files(workdir, workdir, environ={}) == [agent_home / "AGENTS.md", workdir.resolve() / "AGENTS.md"]


def test_duplicate_keys_are_an_error() -> None:
    with pytest.raises(DuplicateSource, match="core/instructions"):
        combine([(AGENTS, []), (AGENTS, [])])
