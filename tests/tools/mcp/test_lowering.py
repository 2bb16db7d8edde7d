"""What the model reads of an MCP tool result: text, images only with vision, resources as text."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.lowering import lower_result
from agent_tui.tools.output_keeper import OutputKeeper

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
"""A 1x1 PNG, base64."""


def _result(*content, is_error: bool = False, structured=None) -> CallToolResult:
    return CallToolResult(content=list(content), is_error=is_error, structured_content=structured)


async def _lower(result: CallToolResult, tmp_path: Path, vision: bool = False, **limits):
    keeper = OutputKeeper(tmp_path / "spill.log", **limits)
    return await lower_result(result, server="docs", tool="search", vision=vision, keeper=keeper)


async def test_images_are_attached_only_when_the_model_has_vision(tmp_path: Path) -> None:
    result = _result(
        TextContent(type="text", text="a chart:"), ImageContent(type="image", data=PIXEL, mime_type="image/png")
    )
    seen = await _lower(result, tmp_path, vision=True)
    assert seen.output.images == [{"path": "", "mime": "image/png", "data": PIXEL}]
    assert seen.output.text == "a chart:\n\n[image image/png attached]"
    blind = await _lower(result, tmp_path, vision=False)
    assert blind.output.images == [] and "cannot view images" in blind.output.text


async def test_embedded_resources_and_links_become_text(tmp_path: Path) -> None:
    result = _result(
        EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///a.md", text="# A")),
        EmbeddedResource(
            type="resource",
            resource=BlobResourceContents(uri="file:///b.bin", blob="AAA=", mime_type="application/zip"),
        ),
        ResourceLink(type="resource_link", uri="file:///c.txt", name="c"),
    )
    text = (await _lower(result, tmp_path)).output.text
    assert "Resource file:///a.md:\n# A" in text
    assert "[resource file:///b.bin (application/zip) omitted: binary content]" in text
    assert "[resource link file:///c.txt (c)]" in text


async def test_structured_content_alone_is_shown_as_json(tmp_path: Path) -> None:
    text = (await _lower(_result(structured={"hits": 2}), tmp_path)).output.text
    assert text == '{"hits": 2}'


async def test_an_error_result_raises_with_the_servers_message(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="docs: search failed: index offline"):
        await _lower(_result(TextContent(type="text", text="index offline"), is_error=True), tmp_path)


async def test_long_text_keeps_head_and_tail_and_spills_the_rest(tmp_path: Path) -> None:
    body = "\n".join(f"line {n}" for n in range(5000))
    text = (await _lower(_result(TextContent(type="text", text=body)), tmp_path, max_lines=100)).output.text
    assert text.startswith("line 0\n") and text.rstrip().endswith("line 4999") and "omitted" in text
    assert (tmp_path / "spill.log").read_text() == body
