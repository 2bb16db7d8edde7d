"""An image the ``read`` tool opens reaches a model that can see, is kept in the log, and is sent again on
later steps; a model that cannot see gets the placeholder text instead."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from ...inbox.test_attachments import PNG
from .conftest import of_type, stored

MODEL = "openai/fake-model"
PNG_URL = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()}}


def _read(path: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": path}}]}


async def _run(runtime: Runtime, sid: str, prompt: str) -> None:
    await runtime.sessions.prompt(sid, prompt, resume=False)
    assert await runtime.sessions.run(sid) is None


def _after_tool(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages from the read call's tool message on."""
    start = next(i for i, m in enumerate(body["messages"]) if m.get("tool_call_id") == "call_1")
    return body["messages"][start:]


async def test_a_read_image_reaches_a_vision_model_and_is_replayed_from_the_log(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    (workdir / "shot.png").write_bytes(PNG)
    fake.add(_read("shot.png"), {"text": "a tiny picture"}, {"text": "still tiny"})
    cli = {"models": {MODEL: {"supports_vision": True}}}
    async with await open_runtime(cli=cli, tools="all", policy="allow", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await _run(runtime, sid, "what is in shot.png?")
        tool, images = _after_tool(fake.accepted[1].body)
        assert tool["content"].startswith("Image shot.png (image/png")
        assert images["role"] == "user" and images["content"][1:] == [PNG_URL]
        (done,) = of_type(await stored(runtime, sid), ev.ToolSucceeded)
        assert done.output.images == [{"path": "shot.png", "mime": "image/png", "data": base64.b64encode(PNG).decode()}]
    (workdir / "shot.png").unlink()
    async with await open_runtime(cli=cli, tools="all", policy="allow", clock=clock) as reopened:
        await _run(reopened, sid, "and now?")
    assert _after_tool(fake.accepted[2].body)[:3] == _after_tool(fake.accepted[1].body) + [
        {"role": "assistant", "content": "a tiny picture"}
    ]


async def test_a_model_without_vision_gets_the_placeholder(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    (workdir / "shot.png").write_bytes(PNG)
    fake.add(_read("shot.png"), {"text": "cannot see it"})
    async with await open_runtime(tools="all", policy="allow", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await _run(runtime, sid, "what is in shot.png?")
    (tool,) = _after_tool(fake.accepted[1].body)
    assert "it is an image (image/png" in tool["content"] and "the current model cannot view images" in tool["content"]


async def test_images_kept_in_the_log_become_placeholders_for_a_model_without_vision(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    (workdir / "shot.png").write_bytes(PNG)
    fake.add(_read("shot.png"), {"text": "a tiny picture"}, {"text": "what image?"})
    async with await open_runtime(
        cli={"models": {MODEL: {"supports_vision": True}}}, tools="all", policy="allow", clock=clock
    ) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await _run(runtime, sid, "what is in shot.png?")
    async with await open_runtime(
        cli={"models": {MODEL: {"supports_vision": False}}}, tools="all", policy="allow", clock=clock
    ) as blind:
        await _run(blind, sid, "and now?")
    body = fake.accepted[2].body
    assert "image_url" not in str(body["messages"])
    assert _after_tool(body)[0]["content"].endswith(
        "\n[image shot.png (image/png) omitted: the current model cannot view images]"
    )


async def test_over_the_anthropic_wire_the_image_is_inside_the_tool_result(
    open_runtime: Any, fake: FakeProvider, workdir: Path, clock: ManualClock
) -> None:
    (workdir / "shot.png").write_bytes(PNG)
    fake.add(_read("shot.png"), {"text": "a tiny picture"})
    model = "anthropic/claude-fake"
    cli = {"model": model, "api_base": fake.base_url, "models": {model: {"supports_vision": True}}}
    async with await open_runtime(cli=cli, tools="all", policy="allow", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await _run(runtime, sid, "what is in shot.png?")
    last = fake.accepted[1].body["messages"][-1]
    (result,) = [block for block in last["content"] if block["type"] == "tool_result"]
    assert result["tool_use_id"] == "call_1" and result["content"][0]["text"].startswith("Image shot.png (image/png")
    assert result["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": base64.b64encode(PNG).decode(),
    }
