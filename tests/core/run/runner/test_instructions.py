"""Instruction checkpoint: baseline before the first prompt, chronological updates after."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.request.ambient import agents_files
from agent_tui.core.request.instructions import AGENTS, DuplicateSource, combine
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from tests.core.run.compaction.helpers import SUMMARY, is_summary_request

from .conftest import kinds, of_type, settle, stored


def _system(body: dict) -> str:
    return "\n".join(
        m["content"] if isinstance(m["content"], str) else str(m["content"])
        for m in body["messages"]
        if m["role"] == "system"
    )


def _user_texts(body: dict) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else " ".join(p.get("text", "") for p in m["content"])
        for m in body["messages"]
        if m["role"] == "user"
    ]


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
    await runtime.sessions.context_entries.put(sid, "api/ticket", {"id": 7})
    await runtime.sessions.prompt(sid, "first")
    await settle(runtime, sid)
    assert '"id": 7' in _system(fake.accepted[0].body)
    await runtime.sessions.context_entries.put(sid, "api/ticket", {"id": 8})
    await runtime.sessions.prompt(sid, "second")
    await settle(runtime, sid)
    assert '"id": 8' in _user_texts(fake.accepted[1].body)[1]
    await runtime.sessions.context_entries.delete(sid, "api/ticket")
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


def _make_unreadable(path: Path, how: str) -> None:
    if how == "not utf-8":
        path.write_bytes(b"Project rule: \xff\xfe use tabs.")  # e.g. saved in another encoding
    else:
        path.mkdir()  # readable by nobody as a file, even as root (chmod 000 is not, for root)


def _make_readable(path: Path, text: str) -> None:
    if path.is_dir():
        path.rmdir()
    path.write_text(text)


@pytest.mark.parametrize("how", ["not utf-8", "a directory"])
async def test_an_unreadable_agents_md_at_the_first_baseline_leaves_the_prompt_pending_until_it_is_readable(
    runtime: Runtime, fake: FakeProvider, workdir: Path, how: str
) -> None:
    agents = workdir / "AGENTS.md"
    _make_unreadable(agents, how)
    fake.add({"text": "answered"})
    sid = (await runtime.sessions.create(location=workdir)).id
    receipt = await runtime.sessions.prompt(sid, "first")
    await settle(runtime, sid)
    assert fake.requests == []  # nothing became model-visible
    log = await stored(runtime, sid)
    failed = of_type(log, ev.ExecutionFailed)
    assert len(failed) == 1 and failed[0].error.type == "instructions.unavailable"
    assert str(agents.resolve()) in failed[0].error.message and "pending" in failed[0].error.message
    assert "instructions.baselined" not in kinds(log) and "prompt.promoted" not in kinds(log)
    assert [row.id for row in await runtime.sessions.pending(sid)] == [receipt.input_id]

    _make_readable(agents, "Project rule: use tabs.")
    assert await runtime.sessions.run(sid) is None
    body = fake.accepted[0].body
    assert "Project rule: use tabs." in _system(body) and _user_texts(body) == ["first"]
    assert await runtime.sessions.pending(sid) == []
    assert kinds(await stored(runtime, sid))[-1] == "execution.succeeded"


async def test_a_source_unavailable_later_keeps_its_last_applied_value_even_across_a_compaction(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    agents = workdir / "AGENTS.md"
    agents.write_text("Project rule: use tabs.")
    fake.add({"text": "one"}, {"text": "two"}, {"text": SUMMARY}, {"text": "three"}, {"text": "four"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await settle(runtime, sid)
    baseline = _system(fake.accepted[0].body)

    _make_unreadable(agents, "not utf-8")
    await runtime.sessions.prompt(sid, "second")
    await settle(runtime, sid)
    second = fake.accepted[1].body
    assert _system(second) == baseline and _user_texts(second) == ["first", "second"]  # no removal, no update
    assert "instructions.updated" not in kinds(await stored(runtime, sid))

    await runtime.sessions.compact(sid)
    await settle(runtime, sid)
    assert is_summary_request(fake.accepted[2].body)
    await runtime.sessions.prompt(sid, "third")
    await settle(runtime, sid)
    baselines = of_type(await stored(runtime, sid), ev.InstructionsBaselined)
    assert len(baselines) == 2  # re-baselined after the compaction, from the last applied value
    assert baselines[1].applied["core/instructions"] == baselines[0].applied["core/instructions"]
    assert "Project rule: use tabs." in _system(fake.accepted[3].body)

    _make_readable(agents, "Project rule: use spaces.")
    await runtime.sessions.prompt(sid, "fourth")
    await settle(runtime, sid)
    update = of_type(await stored(runtime, sid), ev.InstructionsUpdated)
    assert len(update) == 1 and "use spaces" in update[0].text
    assert any("use spaces" in text for text in _user_texts(fake.accepted[4].body))
    assert "execution.failed" not in kinds(await stored(runtime, sid))


async def test_a_model_switch_keeps_the_baseline(runtime: Runtime, fake: FakeProvider, workdir: Path) -> None:
    (workdir / "AGENTS.md").write_text("Project rule: use tabs.")
    fake.add({"text": "one"}, {"text": "two"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await settle(runtime, sid)
    await runtime.sessions.select_model(sid, "openai/other-model")
    await runtime.sessions.prompt(sid, "second")
    await settle(runtime, sid)
    first, second = (request.body for request in fake.accepted)
    assert (first["model"], second["model"]) == ("fake-model", "other-model")
    assert _system(second) == _system(first) and "Project rule: use tabs." in _system(first)
    assert _user_texts(second) == ["first", "second"]
    log = kinds(await stored(runtime, sid))
    assert log.count("instructions.baselined") == 1
    assert "instructions.updated" not in log and "instructions.reset" not in log
