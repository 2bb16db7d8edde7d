"""Tool-result images over real HTTP: inside Anthropic's tool_result, after OpenAI's tool message, a placeholder
for a model without vision."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.llm.types import AssistantTurn, Request, RequestImage, RequestText, ToolUse, ToolUseResult, UserTurn
from agent_tui.testing.fake_provider import FakeProvider, Turn
from tests.llm.conftest import WIRES, Wire, collect

OPENAI, ANTHROPIC = WIRES

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
"""A 1x1 PNG, base64."""


def _history(model: str) -> list[Any]:
    image = RequestImage(mime="image/png", data=PIXEL, path="shot.png")
    return [
        UserTurn(parts=[RequestText(text="what is in shot.png?")]),
        AssistantTurn(
            model=model,
            parts=[
                ToolUse(
                    call_id="call_1",
                    name="read",
                    input={"path": "shot.png"},
                    result=ToolUseResult(ok=True, text="Image shot.png is attached.", images=[image]),
                )
            ],
        ),
    ]


async def _sent(fake: FakeProvider, wire: Wire, *, vision: bool) -> dict[str, Any]:
    fake.add(Turn(text="a red pixel"))
    await collect(
        Request(
            model=wire.model,
            api_base=wire.base(fake),
            api_key="test-key",
            max_tokens=512,
            messages=_history(wire.model),
            supports_vision=vision,
        )
    )
    (accepted,) = fake.accepted
    return accepted.body


async def test_anthropic_gets_the_image_inside_the_tool_result(fake: FakeProvider) -> None:
    body = await _sent(fake, ANTHROPIC, vision=True)
    result = body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "call_1"
    assert [block["type"] for block in result["content"]] == ["text", "image"]
    assert result["content"][1]["source"] == {"type": "base64", "media_type": "image/png", "data": PIXEL}


async def test_openai_gets_the_image_in_a_user_message_after_the_tool_message(fake: FakeProvider) -> None:
    body = await _sent(fake, OPENAI, vision=True)
    tool, after = body["messages"][-2:]
    assert tool["role"] == "tool" and tool["content"] == "Image shot.png is attached."
    assert after["role"] == "user"
    assert after["content"][1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL}"}}


async def test_a_model_without_vision_gets_the_placeholder(fake: FakeProvider, wire: Wire) -> None:
    body = await _sent(fake, wire, vision=False)
    assert PIXEL not in str(body) and "image_url" not in str(body) and "'image'" not in str(body)
    assert "[image shot.png (image/png) omitted: the current model cannot view images]" in str(body["messages"][-1])


@settings(max_examples=80, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=4, max_value=9_000_000), max_size=40),
    provider=st.sampled_from(["openai", "anthropic"]),
)
def test_only_the_newest_images_within_the_request_caps_are_sent(sizes: list[int], provider: str) -> None:
    from agent_tui.llm.images import MAX_IMAGE_CHARS, MAX_IMAGES, OLDER
    from agent_tui.llm.lowering import lower_messages

    turns: list[Any] = []
    for n, size in enumerate(sizes):
        image = RequestImage(mime="image/png", data="A" * size, path=f"{n}.png")
        turns += [
            UserTurn(parts=[RequestText(text=f"read {n}.png")]),
            AssistantTurn(
                model=ANTHROPIC.model,
                parts=[
                    ToolUse(
                        call_id=f"call_{n}",
                        name="read",
                        input={},
                        result=ToolUseResult(ok=True, text="ok", images=[image]),
                    )
                ],
            ),
        ]
    messages = lower_messages(Request(model=ANTHROPIC.model, messages=turns, supports_vision=True), provider)
    sent = [
        len(part["image_url"]["url"]) - len("data:image/png;base64,")
        for m in messages
        if isinstance(m["content"], list)
        for part in m["content"]
        if part["type"] == "image_url"
    ]
    kept = 0
    while kept < min(len(sizes), MAX_IMAGES) and sum(sizes[len(sizes) - kept - 1 :]) <= MAX_IMAGE_CHARS:
        kept += 1
    assert sent == sizes[len(sizes) - kept :]
    assert str(messages).count(OLDER) == len(sizes) - kept
