"""An MCP server (the SDK's ``MCPServer``) whose tools sample the client's model (``sampling/createMessage``), run as a real stdio process.

``ask_model`` asks the client's model the ``question`` (with a system prompt, a
picture, a token limit, a temperature, a stop sequence and a model hint) and
says what came back; ``capabilities`` says whether the client declared sampling.

``python mcp_sampling.py legacy`` speaks only the 2025 handshake (the sampling
request comes in the middle of the call); without it, the 2026 protocol (the
client answers inside the call's retry).
"""

from __future__ import annotations

import sys
import warnings
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer, Resolve
from mcp.server.mcpserver.resolve import Sample
from mcp.types import CreateMessageResult, ImageContent, ModelHint, ModelPreferences, SamplingMessage, TextContent

warnings.simplefilter("ignore")

server = MCPServer("sampling")

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def sample_question(question: str) -> Sample:
    """The SDK sends ``sampling/createMessage`` mid-call (a 2025 connection) or returns an input request
    the client answers and retries with (a 2026 one)."""
    return Sample(
        [
            SamplingMessage(role="user", content=ImageContent(data=PIXEL, mime_type="image/png")),
            SamplingMessage(role="user", content=TextContent(text=question)),
        ],
        max_tokens=64,
        system_prompt="Answer in one word.",
        temperature=0.25,
        stop_sequences=["END"],
        model_preferences=ModelPreferences(hints=[ModelHint(name="small-model")], speed_priority=0.9),
    )


@server.tool()
async def ask_model(question: str, answer: Annotated[CreateMessageResult, Resolve(sample_question)]) -> str:
    """Ask the client's model a question and say what it answered."""
    content = answer.content
    text = content.text if isinstance(content, TextContent) else type(content).__name__
    return f"{answer.model} said {text!r} ({answer.stop_reason})"


@server.tool()
async def capabilities(ctx: Context) -> str:
    """Whether the client declared the sampling capability."""
    declared = ctx.client_capabilities
    return "sampling" if declared is not None and declared.sampling is not None else "no sampling"


if __name__ == "__main__":
    if sys.argv[1:2] == ["legacy"]:
        import mcp.server.runner

        mcp.server.runner._has_modern_envelope = lambda _params: False
    server.run("stdio")
