"""Tool calls through LiteLLM: fragments, parallel calls, odd arguments, and the follow-up request."""

from __future__ import annotations

from agent_tui.llm.types import (
    AssistantTurn,
    Finish,
    FinishReason,
    Request,
    RequestText,
    ToolCall,
    ToolInputDelta,
    ToolInputStart,
    ToolSpec,
    ToolUse,
    ToolUseResult,
    UserTurn,
)
from agent_tui.testing.fake_provider import FakeProvider, Turn
from tests.llm.conftest import collect

READ = ToolSpec(
    name="read",
    description="Read a file",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
)
BASH = ToolSpec(
    name="bash",
    description="Run a command",
    parameters={
        "type": "object",
        "properties": {"command": {"type": "string"}},
    },
)


async def test_fragmented_arguments_stream_live_then_complete(fake: FakeProvider, make_request) -> None:
    patch = {"path": "src/app.py", "note": "x" * 60}
    fake.add(Turn(tool_calls=[{"id": "call_a1", "name": "read", "arguments": patch, "chunks": 6}]))
    events = await collect(make_request(tools=[READ]))
    starts = [e for e in events if isinstance(e, ToolInputStart)]
    deltas = [e for e in events if isinstance(e, ToolInputDelta)]
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(s.call_id, s.name) for s in starts] == [("call_a1", "read")]
    assert len(deltas) >= 5  # the input is visible while it is written
    assert calls == [
        ToolCall(call_id="call_a1", name="read", input=patch, raw_arguments="".join(d.delta for d in deltas))
    ]
    assert events.index(starts[0]) < events.index(deltas[0]) < events.index(calls[0])
    assert isinstance(events[-1], Finish) and events[-1].reason is FinishReason.TOOL_CALLS


async def test_parallel_calls_come_out_in_order_and_complete(fake: FakeProvider, make_request) -> None:
    fake.add(
        Turn(
            text="Let me look.",
            tool_calls=[
                {"id": "call_1", "name": "read", "arguments": {"path": "a.txt"}, "chunks": 3},
                {"id": "call_2", "name": "bash", "arguments": {"command": "ls -la"}, "chunks": 2},
                {"id": "call_3", "name": "read", "arguments": {"path": "b.txt"}, "chunks": 4},
            ],
        )
    )
    events = await collect(make_request(tools=[READ, BASH]))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.call_id, c.name, c.input) for c in calls] == [
        ("call_1", "read", {"path": "a.txt"}),
        ("call_2", "bash", {"command": "ls -la"}),
        ("call_3", "read", {"path": "b.txt"}),
    ]
    # A call is complete (and can start) before the next one has finished streaming.
    kinds = [(e.kind, getattr(e, "call_id", None)) for e in events]
    assert kinds.index(("tool_call", "call_1")) < kinds.index(("tool_input.start", "call_3"))


async def test_empty_arguments_mean_empty_object(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(tool_calls=[{"id": "call_e", "name": "bash", "arguments": ""}]))
    calls = [e for e in await collect(make_request(tools=[BASH])) if isinstance(e, ToolCall)]
    assert [(c.input, c.input_error) for c in calls] == [({}, None)]


async def test_invalid_json_becomes_input_error_not_failure(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(tool_calls=[{"id": "call_bad", "name": "read", "arguments": '{"path": "a.txt",', "chunks": 2}]))
    events = await collect(make_request(tools=[READ]))
    call = next(e for e in events if isinstance(e, ToolCall))
    assert call.input == {} and call.input_error is not None and "Invalid JSON" in call.input_error
    assert isinstance(events[-1], Finish) and events[-1].reason is FinishReason.TOOL_CALLS


async def test_new_id_on_used_index_starts_a_new_call(fake: FakeProvider) -> None:
    # Some OpenAI-compatible servers stream every parallel call at index 0 (OpenAI wire only).
    fake.add(
        Turn(
            tool_calls=[
                {"id": "call_x", "name": "read", "arguments": {"path": "x"}, "chunks": 2, "index": 0},
                {"id": "call_y", "name": "read", "arguments": {"path": "y"}, "chunks": 2, "index": 0},
            ]
        )
    )
    request = Request(
        model="openai/fake-model",
        api_base=fake.openai_base,
        api_key="k",
        tools=[READ],
        messages=[UserTurn(parts=[RequestText(text="go")])],
    )
    calls = [e for e in await collect(request) if isinstance(e, ToolCall)]
    assert [(c.call_id, c.input) for c in calls] == [("call_x", {"path": "x"}), ("call_y", {"path": "y"})]


async def test_tool_results_go_back_in_a_request_the_provider_accepts(fake: FakeProvider, make_request, wire) -> None:
    fake.add(
        Turn(
            text="Checking.",
            tool_calls=[
                {"id": "call_r1", "name": "read", "arguments": {"path": "a"}},
                {"id": "call_r2", "name": "bash", "arguments": {"command": "false"}},
            ],
        ),
        Turn(text="Done."),
    )
    first = await collect(make_request(tools=[READ, BASH]))
    calls = [e for e in first if isinstance(e, ToolCall)]
    history = [
        UserTurn(parts=[RequestText(text="look at a")]),
        AssistantTurn(
            model=wire.model,
            parts=[
                {"type": "text", "text": "Checking."},
                *[
                    ToolUse(
                        call_id=c.call_id,
                        name=c.name,
                        input=c.input,
                        result=ToolUseResult(ok=c.name == "read", text="contents" if c.name == "read" else "exit 1"),
                    )
                    for c in calls
                ],
            ],
        ),
    ]
    second = await collect(make_request(*history, tools=[READ, BASH]))
    assert isinstance(second[-1], Finish) and second[-1].reason is FinishReason.STOP
    assert [r.rejected for r in fake.requests] == [None, None]
    body = fake.requests[1].body
    if wire.name == "openai":
        tool_messages = [m for m in body["messages"] if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == ["call_r1", "call_r2"]
        assert "Error" in str(tool_messages[1]["content"])
    else:
        results = [
            b for m in body["messages"] for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        assert [b["tool_use_id"] for b in results] == ["call_r1", "call_r2"]
