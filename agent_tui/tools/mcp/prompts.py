"""A server's prompts (``prompts/list``, ``prompts/get``): each one a slash command in the TUI.

``/mcp__server__prompt args…`` names the prompt as the model names a tool
(``vocab.mcp_names.tool_name``). The words after it fill the prompt's
arguments: ``name=value`` by name, the others in the listed order (shell
quoting); the front end asks for a required one still missing. The server's
messages, as text, are the expansion: what gets admitted as the user's prompt.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
from dataclasses import dataclass
from typing import Any

from agent_tui.tools.mcp.failure_reasons import reason_of
from agent_tui.tools.mcp.listing import every_page
from agent_tui.vocab.mcp_names import tool_name


@dataclass(frozen=True)
class McpPromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class McpPromptInfo:
    """One prompt as the server lists it, with the slash command it is typed as."""

    server: str
    name: str
    description: str
    arguments: tuple[McpPromptArgument, ...] = ()

    @property
    def command(self) -> str:
        return tool_name(self.server, self.name)

    def fill(self, text: str) -> tuple[dict[str, str], list[McpPromptArgument]]:
        """The arguments ``text`` gives (``name=value`` or in order) and the required ones it does not."""
        try:
            words = shlex.split(text)
        except ValueError:  # an unclosed quote: the words as typed
            words = text.split()
        known = {a.name for a in self.arguments}
        given: dict[str, str] = {}
        loose: list[str] = []
        for word in words:
            key, eq, value = word.partition("=")
            if eq and key in known:
                given[key] = value
            else:
                loose.append(word)
        open_ = [a for a in self.arguments if a.name not in given]
        for argument, word in zip(open_, loose, strict=False):
            given[argument.name] = word
        if len(loose) > len(open_) and open_:  # more words than arguments: the last one takes the rest
            given[open_[-1].name] = " ".join(loose[len(open_) - 1 :])
        missing = [a for a in self.arguments if a.required and not given.get(a.name)]
        return given, missing


def prompt_infos(server: str, listed: list[Any]) -> list[McpPromptInfo]:
    return [
        McpPromptInfo(
            server,
            p.name,
            (p.description or p.title or "").strip(),
            tuple(McpPromptArgument(a.name, a.description or "", bool(a.required)) for a in p.arguments or ()),
        )
        for p in listed
    ]


async def list_prompts(client: Any) -> list[Any]:
    return await every_page(client.list_prompts, "prompts")


async def offered_prompts(client: Any, server: str, timeout_s: float) -> list[McpPromptInfo]:
    """Its prompts, when it offers any (listed within ``timeout_s``); a failure to list them costs the
    prompts, not the server."""
    if getattr(client.server_capabilities, "prompts", None) is None:
        return []
    try:
        async with asyncio.timeout(timeout_s):
            return prompt_infos(server, await list_prompts(client))
    except Exception as error:  # noqa: BLE001 - its tools still work
        logging.getLogger(__name__).warning("MCP server %s: prompts not listed: %s", server, reason_of(error))
        return []


def _text(content: Any) -> str:
    kind = getattr(content, "type", None)
    if kind == "text":
        return str(content.text)
    if kind == "resource":
        inner = content.resource
        text = getattr(inner, "text", None)
        return f"[{inner.uri}]\n{text}" if text is not None else f"[{inner.uri}: binary content not shown]"
    if kind == "resource_link":
        return f"[{content.uri}]"
    return f"[{kind} content not shown]"


def expansion(result: Any) -> str:
    """A ``GetPromptResult`` as one prompt: its messages' text, an assistant one marked as such."""
    parts = []
    for message in result.messages:
        text = _text(message.content)
        parts.append(text if message.role == "user" else f"(assistant) {text}")
    return "\n\n".join(parts).strip()
