"""History -> LiteLLM messages: roles, reminders at their place, tool pairing, caching."""

from __future__ import annotations

from agent_tui.llm.lowering import INTERRUPTED, completion_kwargs, lower_messages, reminder_text
from agent_tui.llm.types import (
    AssistantTurn,
    ReasoningBlock,
    Request,
    RequestFile,
    RequestImage,
    RequestText,
    SystemReminder,
    TextBlock,
    ToolSpec,
    ToolUse,
    ToolUseResult,
    UserTurn,
)

MODEL = "anthropic/claude-fake"


def request(*messages, **fields) -> Request:
    return Request(
        model=fields.pop("model", MODEL),
        system=fields.pop("system", ["agent prompt", "baseline"]),
        messages=list(messages),
        **fields,
    )


def test_only_the_prompt_and_baseline_are_system_role() -> None:
    messages = lower_messages(
        request(
            UserTurn(parts=[RequestText(text="hi")]),
            SystemReminder(text="AGENTS.md changed"),
            AssistantTurn(model=MODEL, parts=[TextBlock(text="ok")]),
            SystemReminder(text="## Objective\n(none)"),
        )
    )
    assert [m["role"] for m in messages] == ["system", "system", "user", "user", "assistant", "user"]
    assert messages[3]["content"] == [{"type": "text", "text": reminder_text("AGENTS.md changed")}]
    assert messages[5]["content"][0]["text"].startswith("<system-reminder>\n## Objective")


def test_every_tool_use_gets_exactly_one_result_right_after() -> None:
    messages = lower_messages(
        request(
            UserTurn(parts=[RequestText(text="go")]),
            AssistantTurn(
                model=MODEL,
                parts=[
                    TextBlock(text="two calls"),
                    ToolUse(call_id="c1", name="read", input={"path": "a"}, result=ToolUseResult(ok=True, text="A")),
                    ToolUse(
                        call_id="c2", name="bash", input={"command": "x"}, result=ToolUseResult(ok=False, text="boom")
                    ),
                    ToolUse(call_id="c3", name="bash", input={}, result=None),
                ],
            ),
        )
    )
    assistant = messages[3]
    assert assistant["content"] == "two calls"
    assert [c["id"] for c in assistant["tool_calls"]] == ["c1", "c2", "c3"]
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"path": "a"}'
    tools = messages[4:]
    assert [(m["role"], m["tool_call_id"]) for m in tools] == [("tool", "c1"), ("tool", "c2"), ("tool", "c3")]
    assert tools[0]["content"] == "A"
    assert tools[1]["content"] == "Error: boom"
    assert tools[2]["content"] == f"Error: {INTERRUPTED}"


def _looked(*images: RequestImage) -> tuple[UserTurn, AssistantTurn]:
    return (
        UserTurn(parts=[RequestText(text="look")]),
        AssistantTurn(
            model=MODEL,
            parts=[
                ToolUse(
                    call_id="c1",
                    name="read",
                    input={"path": "p.png"},
                    result=ToolUseResult(ok=True, text="an image", images=list(images)),
                )
            ],
        ),
    )


PNG_URL = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def test_tool_images_follow_the_results_as_user_content_where_tool_messages_take_text_only() -> None:
    image = RequestImage(mime="image/png", data="iVBORw0KGgo=")
    messages = lower_messages(request(*_looked(image), supports_vision=True), "openai")
    assert [m["role"] for m in messages[3:]] == ["assistant", "tool", "user"]
    assert messages[4]["content"] == "an image"
    assert messages[-1]["content"][1] == PNG_URL


def test_tool_images_go_inside_the_tool_result_for_anthropic() -> None:
    image = RequestImage(mime="image/png", data="iVBORw0KGgo=", path="p.png")
    messages = lower_messages(request(*_looked(image, image), supports_vision=True), "anthropic")
    assert [m["role"] for m in messages[3:]] == ["assistant", "tool"]
    assert messages[4]["content"] == [{"type": "text", "text": "an image"}, PNG_URL, PNG_URL]


def test_a_model_without_vision_gets_a_placeholder_for_each_image() -> None:
    image = RequestImage(mime="image/png", data="iVBORw0KGgo=", path="p.png")
    for provider in ("openai", "anthropic"):
        messages = lower_messages(
            request(*_looked(image, RequestImage(mime="image/gif", data="R0lG")), UserTurn(parts=[image])), provider
        )
        assert [m["role"] for m in messages[3:]] == ["assistant", "tool", "user"]
        assert messages[4]["content"] == (
            "an image\n[image p.png (image/png) omitted: the current model cannot view images]"
            "\n[image image/gif omitted: the current model cannot view images]"
        )
        assert messages[5]["content"] == [
            {"type": "text", "text": "[image p.png (image/png) omitted: the current model cannot view images]"}
        ]
        assert "image_url" not in str(messages)


def test_user_parts_text_file_image() -> None:
    messages = lower_messages(
        request(
            UserTurn(
                parts=[
                    RequestText(text="see"),
                    RequestFile(path="a.py", text="print(1)"),
                    RequestFile(path="b.bin", mime="application/octet-stream"),
                    RequestImage(mime="image/jpeg", data="AAAA"),
                ]
            ),
            supports_vision=True,
        )
    )
    content = messages[-1]["content"]
    assert content[0] == {"type": "text", "text": "see"}
    assert content[1]["text"] == '<file path="a.py">\nprint(1)\n</file>'
    assert "b.bin" in content[2]["text"]
    assert content[3]["image_url"]["url"].startswith("data:image/jpeg;base64,")


def test_empty_turns_are_left_out() -> None:
    messages = lower_messages(
        request(
            UserTurn(parts=[RequestText(text="")]),
            AssistantTurn(model=MODEL, failed=True, parts=[]),
            AssistantTurn(
                model=MODEL,
                parts=[
                    ReasoningBlock(
                        text="only thinking",
                        provider_meta={
                            "thinking_blocks": [{"type": "thinking", "thinking": "only thinking", "signature": "s"}]
                        },
                    )
                ],
            ),
            UserTurn(parts=[RequestText(text="real")]),
        )
    )
    assert [m["role"] for m in messages] == ["system", "system", "user"]


def test_native_reasoning_only_for_same_model_and_successful_step() -> None:
    meta = {"thinking_blocks": [{"type": "thinking", "thinking": "why", "signature": "sig"}]}
    turn = AssistantTurn(model=MODEL, parts=[ReasoningBlock(text="why", provider_meta=meta), TextBlock(text="answer")])
    same = lower_messages(request(turn))[-1]
    assert same["thinking_blocks"] == meta["thinking_blocks"] and same["content"] == "answer"
    switched = lower_messages(request(turn, model="anthropic/claude-other"))[-1]
    assert "thinking_blocks" not in switched and switched["content"] == "why\n\nanswer"
    failed = lower_messages(request(turn.model_copy(update={"failed": True})))[-1]
    assert "thinking_blocks" not in failed and failed["content"] == "why\n\nanswer"


def test_anthropic_gets_cache_breakpoints_openai_does_not() -> None:
    history = (
        UserTurn(parts=[RequestText(text="one")]),
        AssistantTurn(model=MODEL, parts=[TextBlock(text="two")]),
        UserTurn(parts=[RequestText(text="three")]),
    )
    anthropic = completion_kwargs(request(*history), "anthropic")["messages"]
    marked = [m for m in anthropic if any("cache_control" in b for b in m["content"] if isinstance(b, dict))]
    assert [m["role"] for m in marked] == ["system", "user"]
    assert marked[0] is anthropic[1] and marked[1] is anthropic[-1]
    openai = completion_kwargs(request(*history, model="openai/x"), "openai")["messages"]
    assert "cache_control" not in str(openai)
    off = completion_kwargs(request(*history, prompt_cache=False), "anthropic")["messages"]
    assert "cache_control" not in str(off)


def test_kwargs_carry_tools_credentials_and_extra() -> None:
    kwargs = completion_kwargs(
        request(
            UserTurn(parts=[RequestText(text="x")]),
            tools=[ToolSpec(name="read", description="r")],
            api_base="http://h/v1",
            api_key="k",
            max_tokens=99,
            extra={"temperature": 0.2},
        ),
        "openai",
    )
    assert kwargs["tools"] == [
        {
            "type": "function",
            "function": {"name": "read", "description": "r", "parameters": {"type": "object", "properties": {}}},
        }
    ]
    assert (kwargs["api_base"], kwargs["api_key"], kwargs["max_tokens"], kwargs["temperature"]) == (
        "http://h/v1",
        "k",
        99,
        0.2,
    )
    assert "tools" not in completion_kwargs(request(UserTurn(parts=[RequestText(text="x")])), "openai")
