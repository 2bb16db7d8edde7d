"""The imports into the store: a runtime whose tools run, an agent's file imported, resumed against the fake
provider, and every session an import makes checked whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.api import ImportOutcome, MessageRecord
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from tests.core.history.test_rewind import _turn
from tests.core.run.runner.conftest import stored


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(policy="allow", tools="all") as opened:
        yield opened


async def import_file(
    runtime: Runtime, agent: str, path: Path, text: str | None = None, **options: Any
) -> ImportOutcome:
    """The agent's session file ``path`` imported (or ``text``, a cut or a change of it, named by ``path``)."""
    text = path.read_text(encoding="utf-8") if text is None else text
    return await runtime.sessions.transfer.import_foreign(agent, text, path=str(path), **options)


async def resumable(
    runtime: Runtime, agent: str, path: Path, text: str, location: Path
) -> tuple[str, list[MessageRecord]]:
    """``text`` imported as a new session of ``location`` that resumes on this config's model (it has none of
    its own): its id and its assistant messages (each keeps the source's model)."""
    outcome = await import_file(runtime, agent, path, text, location=location)
    assert outcome.created
    session = await runtime.sessions.get(outcome.session_id)
    assert session.location == str(location) and session.model is None
    return outcome.session_id, [m for m in await runtime.sessions.messages(outcome.session_id) if m.kind == "assistant"]


def lines_before(path: Path, *marks: str) -> str:
    """The file as the agent had written it before the first line holding one of ``marks``: a real prefix of it."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[: next(i for i, line in enumerate(lines) if any(mark in line for mark in marks))])


async def resumed(runtime: Runtime, fake: FakeProvider, session_id: str, prompt: str, answer: str) -> list[Any]:
    """A turn of the imported session (``prompt``, the fake answering ``answer``): the messages it sent."""
    fake.add({"text": answer})
    await _turn(runtime, session_id, prompt)
    return list(fake.accepted[-1].body["messages"])


def called(messages: list[Any]) -> list[str]:
    """The names of the tool calls in a request's messages, in order."""
    return [call["function"]["name"] for message in messages for call in message.get("tool_calls") or []]


async def assert_whole(runtime: Runtime, session_id: str, where: object) -> None:
    """Every call of the imported session settled, every step it started ended, and it exports (``where``
    names the case when it is not)."""
    events = [e.event for e in await stored(runtime, session_id)]
    made = [e.call_id for e in events if isinstance(e, ev.ToolCalled)]
    settled = [e.call_id for e in events if isinstance(e, (ev.ToolSucceeded, ev.ToolFailed))]
    assert sorted(made) == sorted(settled), where
    started = [e.assistant_message_id for e in events if isinstance(e, ev.StepStarted)]
    assert started == [e.assistant_message_id for e in events if isinstance(e, ev.StepEnded)], where
    await runtime.sessions.transfer.export(session_id)
