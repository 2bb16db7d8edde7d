"""An MCP server process (written here with the SDK) returns images: a vision model gets them, an image a
provider would refuse (too big, not an image kind it takes) becomes one line saying why."""

from __future__ import annotations

import base64
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.api import Runtime
from agent_tui.core.api import events as ev
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock
from tests.core.run.runner.conftest import of_type, settle, stored

MODEL = "openai/fake-model"
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

SERVER = '''
import base64, sys
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ImageContent

PIXEL = base64.b64decode(sys.argv[1])
server = MCPServer("pics")


@server.tool()
def chart() -> Image:
    """A chart."""
    return Image(data=PIXEL, format="png")


@server.tool()
def poster() -> ImageContent:
    """A poster too big to send."""
    big = PIXEL + bytes(4_000_000)
    return ImageContent(type="image", data=base64.b64encode(big).decode(), mime_type="image/png")


@server.tool()
def drawing() -> ImageContent:
    """An SVG, which providers do not take."""
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"/>'
    return ImageContent(type="image", data=base64.b64encode(svg).decode(), mime_type="image/svg+xml")


server.run("stdio")
'''


@pytest.fixture
async def pics_runtime(open_runtime: Any, tmp_path: Path) -> AsyncIterator[Runtime]:
    script = tmp_path / "pics_server.py"
    script.write_text(SERVER)
    pics = {"command": [sys.executable, str(script), base64.b64encode(PIXEL).decode()], "startup_timeout_s": 60}
    cli = {"mcp": {"servers": {"pics": pics}}, "models": {MODEL: {"supports_vision": True}}}
    async with await open_runtime(cli=cli, policy="allow", clock=ManualClock()) as opened:
        yield opened


async def _call(runtime: Runtime, fake: FakeProvider, workdir: Path, tool: str) -> tuple[str, list[dict[str, Any]]]:
    """The session id and the messages of the second request from the tool message on."""
    fake.add({"tool_calls": [{"id": "call_1", "name": f"mcp__pics__{tool}", "arguments": {}}]}, {"text": "seen"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, f"show me the {tool}")
    await settle(runtime, sid, timeout=60)
    messages = fake.accepted[1].body["messages"]
    start = next(i for i, m in enumerate(messages) if m.get("tool_call_id") == "call_1")
    return sid, messages[start:]


async def test_an_mcp_image_reaches_a_vision_model(pics_runtime: Runtime, fake: FakeProvider, workdir: Path) -> None:
    sid, (tool, images) = await _call(pics_runtime, fake, workdir, "chart")
    data = base64.b64encode(PIXEL).decode()
    assert tool["content"] == "[image image/png attached]"
    assert images["content"][1:] == [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}]
    (done,) = of_type(await stored(pics_runtime, sid), ev.ToolSucceeded)
    assert done.output.images == [{"path": "", "mime": "image/png", "data": data}]


async def test_an_image_over_the_cap_is_one_line_naming_its_size_and_the_cap(
    pics_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    _, after = await _call(pics_runtime, fake, workdir, "poster")
    assert [m["role"] for m in after] == ["tool"]
    assert after[0]["content"] == (
        "[image image/png omitted: it is 3.8 MiB (4000070 bytes), over the 3.6 MiB (3750000 bytes) limit per image]"
    )


async def test_an_image_kind_providers_refuse_is_one_line(
    pics_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    _, after = await _call(pics_runtime, fake, workdir, "drawing")
    assert after[0]["content"] == "[image image/svg+xml omitted: it is not a PNG, JPEG, GIF or WebP image]"
    assert "image_url" not in str(after)


# -- the rule itself, on CallToolResults built here ---------------------------------------------------


async def _lowered(tmp_path: Path, data: str, mime: str):
    from mcp_types import CallToolResult, ImageContent

    from agent_tui.tools.mcp.lowering import lower_result
    from agent_tui.tools.output_keeper import OutputKeeper

    result = CallToolResult(content=[ImageContent(type="image", data=data, mime_type=mime)], is_error=False)
    return (
        await lower_result(
            result, server="pics", tool="chart", vision=True, keeper=OutputKeeper(tmp_path / "spill.log")
        )
    ).output


async def test_the_mime_type_sent_is_the_one_the_bytes_have(tmp_path: Path) -> None:
    output = await _lowered(tmp_path, base64.b64encode(PIXEL).decode(), "image/jpeg")
    assert output.images[0]["mime"] == "image/png" and output.text == "[image image/png attached]"


async def test_data_that_is_not_base64_is_one_line(tmp_path: Path) -> None:
    output = await _lowered(tmp_path, "not base64!", "image/png")
    assert output.images == [] and output.text == "[image image/png omitted: its data is not valid base64]"


async def test_an_image_wider_than_the_cap_is_one_line(tmp_path: Path) -> None:
    wide = PIXEL[:16] + (9000).to_bytes(4, "big") + (10).to_bytes(4, "big") + PIXEL[24:]
    output = await _lowered(tmp_path, base64.b64encode(wide).decode(), "image/png")
    assert output.images == []
    assert output.text == "[image image/png omitted: its longest side is 9000 px, over the 8000 px limit]"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    head=st.sampled_from([b"", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF89a", b"<svg"]),
    body=st.binary(max_size=64),
    mime=st.sampled_from(["image/png", "image/svg+xml", "image/jpeg"]),
)
async def test_any_image_is_sent_as_the_kind_its_bytes_are_or_named_in_one_line(
    tmp_path: Path, head: bytes, body: bytes, mime: str
) -> None:
    from agent_tui.tools.sniff import image_mime

    raw = head + body
    output = await _lowered(tmp_path, base64.b64encode(raw).decode(), mime)
    if output.images:
        (image,) = output.images
        assert image["mime"] == image_mime(raw) and base64.b64decode(image["data"]) == raw
        assert output.text == f"[image {image['mime']} attached]"
    else:
        assert output.text.startswith(f"[image {mime} omitted: ") and "\n" not in output.text
