"""MCP servers' questions in core: declined with no one watching, answered (and checked) when someone is,
each exchange recorded; and the form checks the dialog and core share."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_tui.core.host.elicitations import HEADLESS, Elicitations, InvalidAnswer, OpenQuestion, UnknownElicitation
from agent_tui.core.log import events as ev
from agent_tui.vocab.elicitation import ElicitationRequest, form_fields, validate

SCHEMA = {
    "type": "object",
    "properties": {
        "day": {"type": "string", "title": "Day", "minLength": 3},
        "guests": {"type": "integer", "minimum": 1, "maximum": 12},
        "budget": {"type": "number"},
        "vegan": {"type": "boolean", "default": False},
        "seat": {"type": "string", "enum": ["window", "aisle"]},
    },
    "required": ["day", "guests"],
}
QUESTION = ElicitationRequest(server="tables", message="Which day?", schema=SCHEMA)


class Recorder:
    session_id = "ses_1"

    def __init__(self) -> None:
        self.events: list[Any] = []

    async def __call__(self, event: Any) -> None:
        self.events.append(event)


def test_the_form_checks_what_each_kind_of_field_holds() -> None:
    fields = form_fields(SCHEMA)
    assert [(f.name, f.kind, f.required) for f in fields] == [
        ("day", "string", True),
        ("guests", "integer", True),
        ("budget", "number", False),
        ("vegan", "boolean", False),
        ("seat", "enum", False),
    ]
    assert validate(fields, {"day": "fri", "guests": "2", "budget": "9.5", "vegan": True, "seat": "aisle"}) == (
        {"day": "fri", "guests": 2, "budget": 9.5, "vegan": True, "seat": "aisle"},
        [],
    )
    _, problems = validate(fields, {"day": "fr", "guests": "13", "budget": "lots", "seat": "floor"})
    assert problems == [
        "Day: at least 3 characters",
        "guests: at most 12",
        "budget: a number is needed",
        "seat: one of window, aisle",
    ]
    assert validate(fields, {"guests": "1.5"})[1] == ["Day is required", "guests: a whole number is needed"]
    assert validate(fields, {"day": "sat", "guests": 4})[0] == {"day": "sat", "guests": 4, "vegan": False}


async def test_with_no_one_watching_a_question_is_declined_at_once_and_recorded() -> None:
    publish = Recorder()
    answer = await Elicitations().asker(publish, "msg_1", "call_1")(QUESTION)  # type: ignore[arg-type]
    assert (answer.action, answer.reason) == ("decline", HEADLESS)
    asked, answered = publish.events
    assert isinstance(asked, ev.ElicitationAsked) and (asked.server, asked.call_id) == ("tables", "call_1")
    assert asked.requested_schema == SCHEMA
    assert answered == ev.ElicitationAnswered(request_id=asked.request_id, action="decline", reason=HEADLESS)


async def test_a_watched_question_waits_for_a_checked_answer() -> None:
    elicitations, publish = Elicitations(), Recorder()
    shown: list[OpenQuestion] = []
    elicitations.watch(shown.append)
    asking = asyncio.create_task(elicitations.asker(publish, None, "call_1")(QUESTION))  # type: ignore[arg-type]
    while not shown:
        await asyncio.sleep(0)
    (question,) = shown
    assert elicitations.open("ses_1") == [question]
    with pytest.raises(InvalidAnswer, match="guests is required"):
        elicitations.answer(question.request_id, "accept", {"day": "monday"})
    with pytest.raises(InvalidAnswer, match="accept, decline or cancel"):
        elicitations.answer(question.request_id, "maybe")
    elicitations.answer(question.request_id, "accept", {"day": "monday", "guests": "2"})
    answer = await asking
    assert (answer.action, answer.content) == ("accept", {"day": "monday", "guests": 2, "vegan": False})
    assert question.ended.is_set() and elicitations.open() == []
    with pytest.raises(UnknownElicitation):
        elicitations.answer(question.request_id, "decline")
    assert publish.events[-1].content == {"day": "monday", "guests": 2, "vegan": False}
