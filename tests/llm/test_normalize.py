"""The chunk normaliser on hand-made LiteLLM-shaped chunks (edge cases the wire rarely shows)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from agent_tui.llm.normalize import Normalizer, parse_arguments, read_usage
from agent_tui.llm.types import Finish, FinishReason, ReasoningEnd, TextEnd, ToolCall, ToolInputStart


def chunk(delta=None, finish=None, usage=None, choices=True):
    if not choices:
        return NS(choices=[], usage=usage)
    d = NS(**{"content": None, "reasoning_content": None, "thinking_blocks": None, "tool_calls": None, **(delta or {})})
    return NS(choices=[NS(delta=d, finish_reason=finish)], usage=usage)


def tool(index, id=None, name=None, args=None):
    return NS(index=index, id=id, function=NS(name=name, arguments=args))


def run(*chunks):
    n = Normalizer()
    events = [e for c in chunks for e in n.feed(c)]
    return events + n.finish()


def test_switching_between_text_and_reasoning_closes_the_open_fragment() -> None:
    events = run(
        chunk({"reasoning_content": "plan"}),
        chunk({"content": "a"}),
        chunk({"reasoning_content": "more"}),
        chunk({"content": "b"}, finish="stop"),
    )
    kinds = [e.kind for e in events]
    assert kinds == [
        "reasoning.start",
        "reasoning.delta",
        "reasoning.end",
        "text.start",
        "text.delta",
        "text.end",
        "reasoning.start",
        "reasoning.delta",
        "reasoning.end",
        "text.start",
        "text.delta",
        "text.end",
        "finish",
    ]
    assert [e.text for e in events if isinstance(e, TextEnd)] == ["a", "b"]


def test_thinking_blocks_collect_text_and_signature_per_block() -> None:
    events = run(
        chunk({"reasoning_content": "one ", "thinking_blocks": [{"type": "thinking", "thinking": "one "}]}),
        chunk({"reasoning_content": "two", "thinking_blocks": [{"type": "thinking", "thinking": "two"}]}),
        chunk({"thinking_blocks": [{"type": "thinking", "thinking": "", "signature": "S1"}]}),
        chunk({"thinking_blocks": [{"type": "redacted_thinking", "data": "opaque"}]}),
        chunk({"content": "answer"}, finish="stop"),
    )
    end = next(e for e in events if isinstance(e, ReasoningEnd))
    assert end.text == "one two"
    assert end.provider_meta == {
        "thinking_blocks": [
            {"type": "thinking", "thinking": "one two", "signature": "S1"},
            {"type": "redacted_thinking", "data": "opaque"},
        ]
    }


def test_missing_ids_and_late_names_still_make_calls() -> None:
    events = run(
        chunk({"tool_calls": [tool(0, name="", args='{"a"')]}),
        chunk({"tool_calls": [tool(0, name="read", args=": 1}")]}),
        chunk(finish="stop"),
    )
    call = next(e for e in events if isinstance(e, ToolCall))
    assert (call.call_id, call.name, call.input) == ("call_0", "read", {"a": 1})
    assert events[-1] == Finish(reason=FinishReason.TOOL_CALLS)  # "stop" with calls still asks for tools


def test_usage_from_final_chunk_without_choices() -> None:
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "prompt_tokens_details": {"cached_tokens": 100},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    events = run(chunk({"content": "x"}, finish="length"), chunk(usage=usage, choices=False))
    finish = events[-1]
    assert finish.reason is FinishReason.LENGTH
    assert (
        finish.usage.input_tokens,
        finish.usage.output_tokens,
        finish.usage.reasoning_tokens,
        finish.usage.cache_read_tokens,
    ) == (120, 30, 12, 100)


def test_unknown_or_missing_finish_reason_is_other() -> None:
    assert run(chunk({"content": "x"}, finish="weird"))[-1].reason is FinishReason.OTHER
    events = run(chunk({"content": "x"}))  # a server that ends the stream without one
    assert [e.kind for e in events] == ["text.start", "text.delta", "text.end", "finish"]
    assert events[-1].reason is FinishReason.OTHER
    events = run(chunk({"tool_calls": [tool(0, id="c", name="bash", args="{}")]}))
    assert [e.kind for e in events][-2:] == ["tool_call", "finish"] and events[-1].reason is FinishReason.TOOL_CALLS


def test_tool_input_start_carries_name_and_index() -> None:
    events = run(chunk({"tool_calls": [tool(3, id="c", name="bash", args="")]}), chunk(finish="tool_calls"))
    assert events[0] == ToolInputStart(index=3, call_id="c", name="bash")


def test_parse_arguments_rules() -> None:
    assert parse_arguments("") == ({}, None)
    assert parse_arguments("  ") == ({}, None)
    assert parse_arguments('{"a": [1]}') == ({"a": [1]}, None)
    value, error = parse_arguments("[1, 2]")
    assert value == {} and error is not None and "JSON object" in error
    value, error = parse_arguments("{nope")
    assert value == {} and error is not None and "Invalid JSON" in error


def test_read_usage_prefers_anthropic_cache_fields() -> None:
    usage = read_usage(
        {"prompt_tokens": 50, "completion_tokens": 5, "cache_read_input_tokens": 40, "cache_creation_input_tokens": 7}
    )
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (40, 7)
