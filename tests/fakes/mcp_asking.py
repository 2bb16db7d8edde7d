"""An MCP server (the SDK's ``MCPServer``) with prompts and tools that ask the user (elicitation), run as a real stdio process.

``review`` is a prompt with a required ``path`` and an optional ``focus``
(both completed from fixed lists by ``completion/complete``); ``book`` asks for a
form (a date, a number of guests, whether vegan, a seat from an enum) and says
what it was given, or that the user declined or cancelled; ``visit`` asks the
user to open a URL.

``python mcp_asking.py legacy`` speaks only the 2025 handshake (the
elicitation is a request in the middle of the call); without it, the 2026
protocol (the client answers inside the call's retry).
"""

from __future__ import annotations

import sys
import warnings
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.types import Completion, PromptReference
from pydantic import BaseModel, Field

warnings.simplefilter("ignore")

server = MCPServer("asking")


@server.prompt()
def review(path: str, focus: str = "bugs") -> str:
    """Review a file for one kind of problem."""
    return f"Please review {path}, looking for {focus}."


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
    known = {"focus": ("bugs", "style", "speed"), "path": ("src/app.py", "src/lib.py")}
    if isinstance(ref, PromptReference) and argument.name in known:
        return Completion(values=[v for v in known[argument.name] if v.startswith(argument.value)])
    return None


class Booking(BaseModel):
    date: str = Field(description="Which day")
    guests: int = Field(description="How many people", ge=1)
    vegan: bool = Field(default=False, description="Vegan menu")
    seat: Literal["window", "aisle"] = Field(default="window", description="Where to sit")


def ask_booking() -> Elicit[Booking]:
    """The SDK sends ``elicitation/create`` mid-call (a 2025 connection) or returns an input request
    the client answers and retries with (a 2026 one)."""
    return Elicit("Book a table: which day, for how many?", Booking)


@server.tool()
async def book(answer: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    """Book a table, asking the user for the details."""
    if isinstance(answer, AcceptedElicitation):
        data = answer.data
        return f"booked {data.date} for {data.guests}, vegan={data.vegan}, seat={data.seat}"
    return "booking declined" if answer.action == "decline" else "booking cancelled"


@server.tool()
async def visit(ctx: Context) -> str:
    """Ask the user to sign in at a web page (a 2025 connection: a request in the middle of the call)."""
    answer = await ctx.elicit_url("Sign in to continue", "https://example.com/login", "sign-in-1")
    return f"visit {answer.action}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["legacy"]:
        import mcp.server.runner

        mcp.server.runner._has_modern_envelope = lambda _params: False
    server.run("stdio")
