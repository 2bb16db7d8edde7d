"""``list_mcp_resources`` and ``read_mcp_resource``: the model's way to the servers' resources.

Offered (by ``core.host.mcp_host``) only when a server the agent uses is ready and
lists resources (or templates), bound to those servers. Both carry the ``mcp`` permission
action, so a rule that denies ``mcp`` hides them as it hides the servers' tools.
Listing only reads what was listed at start-up (names and URIs, as listing tools
does) and asks no one; reading asks like a tool call does, for the resource
``<server>/<uri>`` (a ``notes/*`` rule covers a server's tools and resources alike).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from pydantic import BaseModel, Field

from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.mcp.resources import McpResourceInfo, read_text
from agent_tui.tools.mcp.tools import ACTION
from agent_tui.tools.output_keeper import OutputKeeper
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.tool_output import ToolOutput

LIST_TOOL = "list_mcp_resources"
READ_TOOL = "read_mcp_resource"
LIST_LIMIT = 200
"""At most this many resources in one listing (a server may list thousands); the rest is counted."""


class ListInput(BaseModel):
    server: str | None = Field(default=None, description="Only this MCP server's resources (default: every server's).")


class ReadInput(BaseModel):
    server: str = Field(description="The MCP server that has the resource.")
    uri: str = Field(description="The resource's URI, as listed (a template's variables filled in).")


def resource_target(server: str, uri: str) -> str:
    """The permission resource of reading ``uri``: ``<server>/<uri>``."""
    return f"{server}/{uri}"


def resource_tools(connections: Sequence[McpConnection]) -> list[Tool]:
    """The two tools over ``connections`` (those that offer resources); none when no server does."""
    offering = {c.name: c for c in connections if c.has_resources}
    if not offering:
        return []
    names = ", ".join(sorted(offering))

    def pick(server: str) -> McpConnection:
        connection = offering.get(server)
        if connection is None:
            raise ToolError(f"No MCP server {server!r} with resources here; the servers with resources: {names}.")
        return connection

    async def list_run(scope: ToolScope, params: ListInput) -> ToolResult:  # noqa: ARG001 - the Tool signature
        chosen = [pick(params.server)] if params.server else list(offering.values())
        rows = [(c.name, info) for c in chosen for info in c.resources]
        text = "\n".join(_row(server, info) for server, info in rows[:LIST_LIMIT]) or "(no resources listed)"
        if len(rows) > LIST_LIMIT:
            text += f"\n… and {len(rows) - LIST_LIMIT} more (name a server to narrow it)"
        data = {"servers": [c.name for c in chosen], "count": len(rows)}
        return ToolResult(ToolOutput(text=text, data=data), result_meta=data)

    async def read_run(scope: ToolScope, params: ReadInput) -> ToolResult:
        connection = pick(params.server)
        target = resource_target(params.server, params.uri)
        await scope.ask(
            ACTION,
            [target],
            detail={"server": params.server, "tool": READ_TOOL, "arguments": {"uri": params.uri}},
            save_patterns=[target],
        )
        read = read_text(await connection.read_resource(params.uri), vision=scope.supports_vision, cap=None)
        keeper = OutputKeeper(scope.spill_dir / f"mcp-resource-{scope.call_id or 'call'}-{uuid.uuid4().hex[:8]}.log")
        await keeper.feed(read.text.encode("utf-8"))  # long text keeps head and tail, the rest spills
        await keeper.close()
        data = {"server": params.server, "uri": params.uri, "mime": read.mime}
        return ToolResult(ToolOutput(text=keeper.text() or "(empty)", images=read.images, data=data), result_meta=data)

    return [
        Tool(
            name=LIST_TOOL,
            description=(
                "List the resources (and URI templates) of the MCP servers here, one a line: "
                f"server, URI, name, type, description. Servers with resources: {names}."
            ),
            input_model=ListInput,
            run=list_run,
            action=ACTION,
        ),
        Tool(
            name=READ_TOOL,
            description=(
                "Read one resource of an MCP server by its URI (from list_mcp_resources, or a template's URI "
                "with its variables filled in). Text comes back as text; an image as an image when you can see "
                "images; other binary content is described."
            ),
            input_model=ReadInput,
            run=read_run,
            action=ACTION,
        ),
    ]


def _row(server: str, info: McpResourceInfo) -> str:
    kind = "template" if info.template else (info.mime or "resource")
    about = f" - {info.description}" if info.description else ""
    return f"{server} {info.uri} ({info.name}, {kind}){about}"
