"""A server's resources (``resources/list``, ``resources/templates/list``) and what reading one gives.

``connection`` holds the listing (refreshed when the server says it changed) and
sends the requests; this module only pages through a listing and turns the
contents of a ``ReadResourceResult`` into what the model reads: text as text,
an image as an image when the model has vision, any other blob as one line
saying what it is (bytes the model cannot read are no use in its context).
No SDK import: the results are read by attribute, as ``lowering`` reads a tool's.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
from dataclasses import dataclass, field
from typing import Any

from agent_tui.tools.image_limits import ImageRefused, check_size, checked_mime
from agent_tui.tools.mcp.failure_reasons import reason_of
from agent_tui.tools.mcp.listing import every_page

TEXT_CAP = 50 * 1024
"""The most characters of a resource's text kept (as a mentioned file's read stops at 50 KiB)."""


@dataclass(frozen=True)
class McpResourceInfo:
    """One listed resource, or a template (``uri`` is then its RFC 6570 ``uriTemplate``)."""

    uri: str
    name: str
    description: str = ""
    mime: str | None = None
    template: bool = False


@dataclass
class ResourceText:
    """A read resource as the model reads it: text, and the images it holds (``ToolOutput.images`` shape)."""

    text: str
    mime: str | None = None
    images: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False


def resource_capability(client: Any, flag: str) -> bool:
    """The server's ``resources`` capability declares ``flag`` (``subscribe``, ``list_changed``)."""
    resources = getattr(client.server_capabilities, "resources", None)
    return bool(getattr(resources, flag, False))


async def list_all(client: Any) -> list[McpResourceInfo]:
    """Every listed resource, then every template (each listing paged to its end, within ``listing.LIST_PAGES``)."""
    resources = await every_page(client.list_resources, "resources")
    templates = await every_page(client.list_resource_templates, "resource_templates")
    return [
        *(McpResourceInfo(str(r.uri), r.name or str(r.uri), r.description or "", r.mime_type) for r in resources),
        *(
            McpResourceInfo(t.uri_template, t.name or t.uri_template, t.description or "", t.mime_type, template=True)
            for t in templates
        ),
    ]


async def listed_within(client: Any, server: str, timeout_s: float) -> list[McpResourceInfo]:
    """``list_all`` within ``timeout_s``; a failed listing lists none (reads by URI still work) and is
    logged, never a failure of the server."""
    try:
        async with asyncio.timeout(timeout_s):
            return await list_all(client)
    except Exception as error:  # noqa: BLE001 - MCPError, a timeout or a transport error
        logging.getLogger("mcp.servers").info("MCP server %s: resources not listed: %s", server, reason_of(error))
        return []


def read_text(result: Any, *, vision: bool, cap: int | None = TEXT_CAP) -> ResourceText:
    """The contents of a ``ReadResourceResult``: texts joined, images kept (with vision), other blobs
    described; text past ``cap`` characters is cut with a line that says so (None: kept whole, for
    the tool, whose long output spills like any tool's)."""
    images: list[dict[str, Any]] = []
    pieces: list[str] = []
    mimes: list[str] = []
    for content in result.contents:
        mime = getattr(content, "mime_type", None)
        if mime:
            mimes.append(mime)
        text = getattr(content, "text", None)
        if text is not None:
            pieces.append(text)
            continue
        pieces.append(_blob(str(content.uri), mime, getattr(content, "blob", "") or "", vision, images))
    joined = "\n\n".join(pieces)
    truncated = cap is not None and len(joined) > cap
    if truncated:
        joined = joined[:cap] + f"\n\n[cut at {cap} characters of {len(joined)}: read_mcp_resource gives it all]"
    return ResourceText(joined, mimes[0] if mimes else None, images, truncated)


def _blob(uri: str, mime: str | None, data: str, vision: bool, images: list[dict[str, Any]]) -> str:
    size = len(data) * 3 // 4 - data[-2:].count("=") if data else 0
    what = f"[binary resource {uri} ({mime or 'unknown type'}, {size} bytes)"
    if not (mime or "").startswith("image/"):
        return what + ": not shown]"
    if not vision:
        return what + ": an image the current model cannot view]"
    try:
        check_size(size)
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise ImageRefused("its data is not valid base64") from None
        checked = checked_mime(raw)
    except ImageRefused as refused:
        return what + f": {refused}]"
    images.append({"path": uri, "mime": checked, "data": base64.b64encode(raw).decode("ascii")})
    return f"[image {checked} attached: {uri}]"
