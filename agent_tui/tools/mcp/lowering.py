"""An MCP ``CallToolResult`` as the model reads it: text, images when it has vision, resources as text."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from agent_tui.tools.errors import ToolError
from agent_tui.tools.image_limits import ImageRefused, check_size, checked_mime
from agent_tui.tools.output_keeper import OutputKeeper
from agent_tui.tools.tool import ToolResult
from agent_tui.vocab.tool_output import ToolOutput


def _part_text(part: Any, vision: bool, images: list[dict[str, Any]]) -> str:
    match getattr(part, "type", None):
        case "text":
            content: str = part.text
            return content
        case "image" if vision:
            return _image(part.data, part.mime_type, images)
        case "image":
            return f"[image {part.mime_type} omitted: the current model cannot view images]"
        case "audio":
            return f"[audio {part.mime_type} omitted: the model cannot hear audio]"
        case "resource":
            resource = part.resource
            text = getattr(resource, "text", None)
            if text is not None:
                return f"Resource {resource.uri}:\n{text}"
            return f"[resource {resource.uri} ({resource.mime_type or 'binary'}) omitted: binary content]"
        case "resource_link":
            return f"[resource link {part.uri}" + (f" ({part.name})" if getattr(part, "name", None) else "") + "]"
    return f"[unsupported content {getattr(part, 'type', type(part).__name__)}]"


def _image(data: str, declared: str, images: list[dict[str, Any]]) -> str:
    """Keep the image when a provider would take it (its MIME type read from its bytes), else say why not."""
    try:
        check_size(len(data) * 3 // 4 - data[-2:].count("="))  # before decoding it
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise ImageRefused("its data is not valid base64") from None
        mime = checked_mime(raw)
    except ImageRefused as refused:
        return f"[image {declared} omitted: {refused}]"
    images.append({"path": "", "mime": mime, "data": base64.b64encode(raw).decode("ascii")})
    return f"[image {mime} attached]"


async def lower_result(result: Any, *, server: str, tool: str, vision: bool, keeper: OutputKeeper) -> ToolResult:
    """``isError`` raises ``ToolError`` with the server's message; long text keeps head and tail (the rest spills)."""
    images: list[dict[str, Any]] = []
    texts = [_part_text(part, vision, images) for part in result.content]
    if not texts and result.structured_content is not None:
        texts = [json.dumps(result.structured_content, ensure_ascii=False)]
    text = "\n\n".join(t for t in texts if t)
    if result.is_error:
        raise ToolError(f"MCP server {server}: {tool} failed: {text or 'no message'}")
    await keeper.feed(text.encode("utf-8"))
    await keeper.close()
    output = ToolOutput(text=keeper.text() or "(no output)", images=images, data={"server": server, "tool": tool})
    return ToolResult(output, result_meta={"server": server, "tool": tool})
