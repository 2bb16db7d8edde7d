"""Where the steering and agent-switch reminders go: derived from the history alone, so every
request of a session carries them at the same place."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.core.log.records import MessageKind, MessageRecord
from agent_tui.core.request.reminders import STEER_REMINDER, agent_switch_reminder, reminders_before


def _message(seq: int, kind: MessageKind, data: dict[str, Any]) -> MessageRecord:
    return MessageRecord(id=f"m{seq}", session_id="s", seq=seq, kind=kind, data=data, created=0, updated=0)


def user(seq: int, delivery: str = "steer") -> MessageRecord:
    return _message(seq, "user", {"prompt": [{"type": "text", "text": f"u{seq}"}], "delivery": delivery})


def step(seq: int, agent: str = "build", tools: bool = False, state: str = "ended") -> MessageRecord:
    parts = [{"type": "tool", "call_id": "c"}] if tools else [{"type": "text", "text": "a"}]
    return _message(seq, "assistant", {"agent": agent, "parts": parts, "state": state})


def test_a_steer_into_a_turn_that_goes_on_is_reminded_before_the_next_step() -> None:
    history = [user(0), step(1, tools=True), user(2), step(3)]
    assert reminders_before(history) == {3: [STEER_REMINDER]}
    assert reminders_before(history[:3], "build") == {3: [STEER_REMINDER]}  # the step about to run


def test_no_reminder_for_a_prompt_after_the_turn_ended_a_queued_input_or_a_stopped_step() -> None:
    assert reminders_before([user(0), step(1), user(2)], "build") == {}
    assert reminders_before([user(0), step(1, tools=True), user(2, delivery="queue")], "build") == {}
    stopped = [user(0), step(1, tools=True, state="failed"), user(2)]
    assert reminders_before(stopped, "build") == {}


def test_an_agent_switch_is_told_once_before_the_first_step_under_the_new_agent() -> None:
    history = [user(0), step(1, agent="plan"), user(2), step(3, agent="build"), user(4), step(5, agent="build")]
    assert reminders_before(history) == {3: [agent_switch_reminder("plan", "build")]}
    assert reminders_before(history, "plan") == {
        3: [agent_switch_reminder("plan", "build")],
        6: [agent_switch_reminder("build", "plan")],
    }
    assert "do not edit" in agent_switch_reminder("build", "plan")


_HISTORY = st.lists(
    st.one_of(
        st.builds(lambda d: ("user", d), st.sampled_from(["steer", "queue"])),
        st.builds(lambda a, t: ("assistant", a, t), st.sampled_from(["build", "plan", "review"]), st.booleans()),
    ),
    max_size=20,
)


def _records(spec: list[tuple[Any, ...]]) -> list[MessageRecord]:
    return [user(i, entry[1]) if entry[0] == "user" else step(i, entry[1], entry[2]) for i, entry in enumerate(spec)]


@given(_HISTORY, st.sampled_from(["build", "plan"]), st.booleans())
def test_what_a_request_carried_stays_where_it_was_when_the_step_is_recorded(
    spec: list[tuple[Any, ...]], agent: str, tools: bool
) -> None:
    history = _records(spec)
    before = reminders_before(history, agent)
    after = reminders_before([*history, step(len(history), agent, tools)])
    assert before == {index: texts for index, texts in after.items() if index <= len(history)}
