"""The fake rejects what the real APIs reject, with their 400 error shapes, and keeps the turn."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_tui.testing.fake_provider import FakeProvider, Turn
from tests.testing.conftest import post


def _call(call_id: str, name: str = "read") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _openai(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "stream": True, "messages": list(messages), **extra}


USER = {"role": "user", "content": "hi"}
OPENAI_BAD = {
    "tool call without result": (
        _openai(USER, {"role": "assistant", "content": None, "tool_calls": [_call("c1")]}),
        "did not have response messages: c1",
    ),
    "result before its call": (
        _openai(USER, {"role": "tool", "tool_call_id": "c1", "content": "x"}),
        "must be a response to a preceeding message with 'tool_calls'",
    ),
    "two results for one call": (
        _openai(
            USER,
            {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
            {"role": "tool", "tool_call_id": "c1", "content": "x"},
            {"role": "tool", "tool_call_id": "c1", "content": "y"},
        ),
        "duplicate",
    ),
    "user between call and result": (
        _openai(
            USER,
            {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
            USER,
            {"role": "tool", "tool_call_id": "c1", "content": "x"},
        ),
        "did not have response messages: c1",
    ),
    "unknown role": (_openai({"role": "reminder", "content": "x"}), "Invalid value: 'reminder'"),
    "null content": (_openai(USER, {"role": "assistant", "content": None}), "expected a string, got null"),
    "no messages": (_openai(), "empty array"),
    "bad tool name": (
        _openai(USER, tools=[{"type": "function", "function": {"name": "a b"}}]),
        "tools[0].function.name",
    ),
    "image in a tool message": (
        _openai(
            USER,
            {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
            },
        ),
        "Invalid value: 'image_url'. Supported values are: 'text'.",
    ),
}


@pytest.mark.parametrize("case", list(OPENAI_BAD), ids=list(OPENAI_BAD))
async def test_openai_rejections(fake: FakeProvider, http, case: str) -> None:
    body, expected = OPENAI_BAD[case]
    fake.add(Turn(text="kept"))
    status, _, text = await post(http, f"{fake.openai_base}/chat/completions", body)
    error = json.loads(text)["error"]
    assert (
        status == 400
        and error["type"] == "invalid_request_error"
        and set(error) == {"message", "type", "param", "code"}
    )
    assert expected in error["message"]
    assert fake.remaining == 1 and fake.requests[-1].rejected == error["message"]


def _anthropic(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "stream": True, "max_tokens": 100, "messages": list(messages), **extra}


def _use(use_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": "read", "input": {}}


def _result(use_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": "x"}


AUSER = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
SIGNED = {"type": "thinking", "thinking": "t", "signature": "s"}
ANTHROPIC_BAD = {
    "system role in messages": (
        _anthropic({"role": "system", "content": "x"}),
        "Input should be 'user' or 'assistant'",
    ),
    "tool_use without result": (
        _anthropic(AUSER, {"role": "assistant", "content": [_use("u1")]}, AUSER),
        "ids were found without `tool_result` blocks immediately after: u1",
    ),
    "result for unknown call": (_anthropic({"role": "user", "content": [_result("u9")]}), "unexpected `tool_use_id`"),
    "two results": (
        _anthropic(
            AUSER,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_result("u1"), _result("u1")]},
        ),
        "single result",
    ),
    "unsigned thinking": (
        _anthropic(
            AUSER,
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "a"}]},
        ),
        "signature: Field required",
    ),
    "thinking after tool_use": (
        _anthropic(
            AUSER, {"role": "assistant", "content": [_use("u1"), SIGNED]}, {"role": "user", "content": [_result("u1")]}
        ),
        "must come before `tool_use`",
    ),
    "empty text block": (
        _anthropic({"role": "user", "content": [{"type": "text", "text": ""}]}),
        "text content blocks must be non-empty",
    ),
    "empty message": (_anthropic(AUSER, {"role": "assistant", "content": []}, AUSER), "non-empty content"),
    "tool_result in assistant": (_anthropic(AUSER, {"role": "assistant", "content": [_result("u1")]}), "not allowed"),
    "no max_tokens": ({"model": "m", "messages": [AUSER]}, "max_tokens: Field required"),
    "duplicate tool ids": (
        _anthropic(
            AUSER,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_result("u1")]},
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [_result("u1")]},
        ),
        "must be unique",
    ),
    "too many cache breakpoints": (
        _anthropic(
            *[{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}]}] * 5
        ),
        "maximum of 4 blocks",
    ),
    "thinking on, last tool turn unsigned": (
        _anthropic(
            AUSER,
            {"role": "assistant", "content": [{"type": "text", "text": "a"}, _use("u1")]},
            {"role": "user", "content": [_result("u1")]},
            thinking={"type": "enabled", "budget_tokens": 1024},
        ),
        "must start with a thinking block",
    ),
    "svg image in a tool_result": (
        _anthropic(
            AUSER,
            {"role": "assistant", "content": [_use("u1")]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "u1",
                        "content": [
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/svg+xml", "data": "PHN2Zz4="},
                            }
                        ],
                    }
                ],
            },
        ),
        "media_type: Input should be 'image/jpeg'",
    ),
    "tool_use in a tool_result": (
        _anthropic(
            AUSER,
            {"role": "assistant", "content": [_use("u1")]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "u1", "content": [_use("u2")]}]},
        ),
        "messages.2.content.0.content.0.type: Input tag 'tool_use'",
    ),
}


@pytest.mark.parametrize("case", list(ANTHROPIC_BAD), ids=list(ANTHROPIC_BAD))
async def test_anthropic_rejections(fake: FakeProvider, http, case: str) -> None:
    body, expected = ANTHROPIC_BAD[case]
    fake.add(Turn(text="kept"))
    status, _, text = await post(http, f"{fake.base_url}/v1/messages", body)
    answer = json.loads(text)
    assert status == 400 and answer["type"] == "error" and answer["error"]["type"] == "invalid_request_error"
    assert expected in answer["error"]["message"]
    assert fake.remaining == 1


async def test_valid_histories_pass(fake: FakeProvider, http) -> None:
    fake.add(Turn(text="a"), Turn(text="b"))
    status, _, _ = await post(
        http,
        f"{fake.openai_base}/chat/completions",
        _openai(
            {"role": "system", "content": "s"},
            USER,
            {"role": "assistant", "content": None, "tool_calls": [_call("c1"), _call("c2")]},
            {"role": "tool", "tool_call_id": "c2", "content": "y"},
            {"role": "tool", "tool_call_id": "c1", "content": "x"},
            {"role": "assistant", "content": "done"},
            USER,
        ),
    )
    assert status == 200
    status, _, _ = await post(
        http,
        f"{fake.base_url}/v1/messages",
        _anthropic(
            AUSER,
            {"role": "assistant", "content": [SIGNED, {"type": "text", "text": "a"}, _use("u1"), _use("u2")]},
            {"role": "user", "content": [_result("u2"), _result("u1"), {"type": "text", "text": "more"}]},
            thinking={"type": "enabled", "budget_tokens": 1024},
            system=[{"type": "text", "text": "s"}],
        ),
    )
    assert status == 200
    assert [r.rejected for r in fake.requests] == [None, None]


async def test_validation_can_be_switched_off_per_turn(fake: FakeProvider, http) -> None:
    fake.add(Turn(text="anything goes", validate=False))
    status, _, _ = await post(
        http, f"{fake.openai_base}/chat/completions", _openai({"role": "reminder", "content": "x"})
    )
    assert status == 200
