import json
from typing import Annotated, Union

import pytest
from pydantic import Field, TypeAdapter

from agent_tui.core.log import events as ev
from agent_tui.vocab.kinds import Delivery


def test_every_durable_type_is_versioned_and_unique() -> None:
    types = [cls.TYPE for cls in ev.DURABLE_EVENTS]
    assert len(types) == len(set(types))
    assert all(t.startswith("session.") and t.endswith(".1") for t in types)


def test_round_trip() -> None:
    event = ev.PromptAdmitted(input_id="msg_1", prompt=ev.text_prompt("hi"), delivery=Delivery.QUEUE)
    type_, data = ev.encode(event)
    assert type_ == "session.prompt.admitted.1"
    assert ev.decode(type_, data) == event


def test_unknown_fields_are_ignored() -> None:
    data = {"assistant_message_id": "msg_1", "ordinal": 0, "text": "x", "future": {"a": 1}}
    decoded = ev.decode("session.text.ended.1", json.dumps(data))
    assert decoded == ev.TextEnded(assistant_message_id="msg_1", ordinal=0, text="x")


def test_unknown_type_is_kept_not_fatal() -> None:
    decoded = ev.decode("session.hologram.projected.3", '{"beam": 1}')
    assert isinstance(decoded, ev.UnknownEvent)
    assert decoded.model_extra == {"beam": 1}


def test_malformed_payload_names_type_and_key() -> None:
    with pytest.raises(ev.MalformedEvent, match=r"session.step.started.1.*assistant_message_id"):
        ev.decode("session.step.started.1", '{"agent": "build", "model": "m"}')


def test_prompt_parts_leave_room_for_files_and_images() -> None:
    event = ev.PromptAdmitted(
        input_id="msg_1",
        prompt=[
            {"type": "text", "text": "see"},
            {"type": "file", "path": "a.py"},
            {"type": "image", "path": "x.png", "mime": "image/png"},
        ],
    )
    assert [type(p).__name__ for p in event.prompt] == ["TextPart", "FilePart", "ImagePart"]
    assert ev.prompt_text(event.prompt) == "see\n@a.py\n@x.png"


def test_live_events_are_discriminated() -> None:
    live = Union[tuple(ev.LiveEvent.__subclasses__())]  # noqa: UP007 - a union of a computed tuple; a repeated ``kind`` would fail right here
    parsed = TypeAdapter(Annotated[live, Field(discriminator="kind")]).validate_python(
        {"kind": "text.delta", "session_id": "s", "assistant_message_id": "m", "ordinal": 0, "delta": "x"}
    )
    assert isinstance(parsed, ev.TextDelta)
