"""A server's tools as registry entries: ``mcp__<server>__<tool>``, permission action ``mcp``."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict

from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.tools.mcp.listing import McpToolInfo
from agent_tui.tools.mcp.lowering import lower_result
from agent_tui.tools.output_keeper import OutputKeeper
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.mcp_names import tool_name

ACTION = "mcp"


class McpArguments(BaseModel):
    """Any JSON object: the server checks its arguments against its own schema."""

    model_config = ConfigDict(extra="allow")


def resource(server: str, tool: str) -> str:
    """The permission resource: ``<server>/<tool>``, matched by patterns such as ``notes/*``."""
    return f"{server}/{tool}"


def registrations(connection: McpConnection) -> list[Tool]:
    """One ``Tool`` per listed tool of a ready server."""
    return [_tool(connection, info) for info in connection.tools]


def _tool(connection: McpConnection, info: McpToolInfo) -> Tool:
    server = connection.name

    async def run(scope: ToolScope, params: McpArguments) -> ToolResult:
        arguments: dict[str, Any] = dict(params.model_extra or {})
        target = resource(server, info.name)
        await scope.ask(
            ACTION,
            [target],
            detail={"server": server, "tool": info.name, "arguments": arguments},
            save_patterns=[target],
        )
        result = await connection.call(
            info.name, arguments, on_progress=scope.on_output, elicit=scope.elicit, sample=scope.sample
        )
        spill = scope.spill_dir / f"mcp-{scope.call_id or 'call'}-{uuid.uuid4().hex[:8]}.log"
        return await lower_result(
            result, server=server, tool=info.name, vision=scope.supports_vision, keeper=OutputKeeper(spill)
        )

    description = f"(MCP server {server}) {info.description}".strip()
    parameters = {"type": "object", **{k: v for k, v in info.schema.items() if k != "title"}}
    return Tool(
        name=tool_name(server, info.name),
        description=description,
        input_model=McpArguments,
        run=run,
        action=ACTION,
        parameters=parameters,
    )
