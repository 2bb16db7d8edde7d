"""Structured output in the request and the log, without a provider: what ``shape`` sends, when the
turn is over (``answered``), and JSON mode's answer read from the final text."""

from __future__ import annotations

from typing import Any

from agent_tui.core.log.records import MessageKind, MessageRecord, ToolCallRecord
from agent_tui.core.request.assembly import as_final_step
from agent_tui.core.request.structured import FORCE_CHOICE, answered, shape, text_answer
from agent_tui.llm import types as llm
from agent_tui.tools.final_answer import OutputSchema

OUTPUT = OutputSchema({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
REQUEST = llm.Request(model="m", tools=[llm.ToolSpec(name="read", description="r")])


def _message(seq: int, kind: MessageKind, data: dict[str, Any]) -> MessageRecord:
    return MessageRecord(id=f"m{seq}", session_id="s", seq=seq, kind=kind, data=data, created=0, updated=0)


def _call(message: str, name: str, state: str) -> ToolCallRecord:
    return ToolCallRecord(
        session_id="s", assistant_message_id=message, call_id="c", seq=9, name=name, input={}, state=state,
        output=None, error=None, call_meta={}, result_meta=None, hosted=False,
    )  # fmt: skip


def test_shape_offers_forces_or_leaves_alone() -> None:
    assert shape(REQUEST, None, final_step=False) is REQUEST
    offered = shape(REQUEST, OUTPUT, final_step=False)
    assert [t.name for t in offered.tools] == ["read", "final_answer"] and "tool_choice" not in offered.extra
    forced = shape(REQUEST, OutputSchema(OUTPUT.schema, forced=True), final_step=False)
    assert forced.extra["tool_choice"] == FORCE_CHOICE
    final = shape(as_final_step(REQUEST), OUTPUT, final_step=True)
    assert [t.name for t in final.tools] == ["final_answer"] and final.extra["tool_choice"] == FORCE_CHOICE
    unforced = shape(as_final_step(REQUEST), OUTPUT, final_step=True, choice=False)
    assert [t.name for t in unforced.tools] == ["final_answer"] and "tool_choice" not in unforced.extra
    native = shape(REQUEST, OUTPUT, final_step=False, native=True)
    assert [t.name for t in native.tools] == ["read"] and native.extra["response_format"]["type"] == "json_schema"


def test_only_an_accepted_answer_in_an_ended_step_ends_the_turn() -> None:
    tool_step = _message(2, "assistant", {"state": "ended", "parts": [{"type": "tool", "call_id": "c"}]})
    history = [_message(1, "user", {}), tool_step]
    assert answered(history, [_call("m2", "final_answer", "success")])
    assert not answered(history, [_call("m2", "final_answer", "failed")])
    assert not answered(history, [_call("m2", "read", "success")])
    assert not answered(history, [_call("m0", "final_answer", "success")])  # another step's
    assert not answered([*history, _message(3, "user", {})], [_call("m2", "final_answer", "success")])


def test_json_mode_reads_the_newest_text_when_it_matches() -> None:
    def said(seq: int, text: str) -> MessageRecord:
        return _message(seq, "assistant", {"state": "ended", "parts": [{"type": "text", "text": text}]})

    assert text_answer([said(1, '{"n": 1}')], OUTPUT).value == {"n": 1}  # type: ignore[union-attr]
    assert text_answer([said(1, '```json\n{"n": 2}\n```')], OUTPUT).value == {"n": 2}  # type: ignore[union-attr]
    assert text_answer([said(1, '{"n": 1}'), said(2, "plain words")], OUTPUT) is None
    assert text_answer([said(1, '{"n": "x"}')], OUTPUT) is None
    assert text_answer([said(1, '{"n": 1}')], OUTPUT, after=1) is None
