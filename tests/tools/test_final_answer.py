"""The generated ``final_answer`` tool: its parameters, and the check of what the model hands it."""

from __future__ import annotations

import pytest

from agent_tui.tools.final_answer import InvalidSchema, OutputSchema, checked_schema

OBJECT = {"type": "object", "properties": {"n": {"type": "integer"}, "tags": {"type": "array"}}, "required": ["n"]}


def test_an_object_schema_is_the_parameters_and_anything_else_is_wrapped() -> None:
    assert OutputSchema(OBJECT).spec()["parameters"] == OBJECT
    wrapped = OutputSchema({"type": "string", "enum": ["yes", "no"]})
    assert wrapped.parameters() == {
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["answer"],
    }
    settled = wrapped.settle({"answer": "yes"})
    assert settled.output is not None and settled.output.data == {"value": "yes"}


def test_a_refusal_lists_every_problem_with_its_place() -> None:
    settled = OutputSchema(OBJECT).settle({"tags": "x"})
    assert settled.error is not None and settled.error.type == "tool.input"
    message = settled.error.message
    assert "(answer): 'n' is a required property" in message and "tags: 'x' is not of type 'array'" in message
    assert message.endswith("Call final_answer again.")


def test_many_problems_are_cut_at_eight() -> None:
    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(12)}}
    settled = OutputSchema(schema).settle({f"p{i}": "x" for i in range(12)})
    assert settled.error is not None and "and 4 more" in settled.error.message


def test_an_unresolvable_reference_fails_the_call_without_fetching() -> None:
    settled = OutputSchema({"$ref": "http://127.0.0.1:9/never.json"}).settle({"answer": 1})
    assert settled.error is not None and settled.error.type == "tool.execution"
    assert "cannot be checked" in settled.error.message


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ([], "not list"),
        ({"type": "nonsense"}, "type:"),
        ({"$schema": ["x"]}, "$schema"),
        ({"pattern": "("}, "is not a 'regex'"),
    ],
)
def test_an_invalid_schema_is_one_line(schema: object, why: str) -> None:
    with pytest.raises(InvalidSchema, match=None) as raised:
        checked_schema(schema)
    assert why in str(raised.value) and "\n" not in str(raised.value)


def test_a_valid_schema_comes_back_as_it_is() -> None:
    assert checked_schema(OBJECT) is OBJECT
