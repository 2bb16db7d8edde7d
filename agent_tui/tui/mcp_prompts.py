"""MCP prompts as slash commands: ``/mcp__server__prompt args…`` beside the prompt-file commands. No Textual.

The registry lists each prompt of the servers here (``services.command_specs``),
so it appears in ``/`` completion, the palette and the help screen. Running one
fills its arguments from what was typed (``name=value`` or in order), asks for
the required ones still missing (``screens.mcp_prompt``), has the runtime expand
it (``prompts/get``) and sends the expansion as the user's prompt.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_tui.tui.command_registry import CommandSpec

ACTION = "run_mcp_prompt"


def prompts_here(statuses: Iterable[Any], location: str) -> dict[str, Any]:
    """The prompts of the servers at ``location`` by command name (``mcp__server__prompt``)."""
    found: dict[str, Any] = {}
    for status in statuses:
        if status.location == location:
            for prompt in getattr(status, "prompts", ()):
                found.setdefault(prompt.command, prompt)
    return found


def usage(prompt: Any) -> str:
    """``[path] [focus]``-style: the arguments in order, a required one without brackets."""
    return " ".join(a.name if a.required else f"[{a.name}]" for a in prompt.arguments) or "[ARGUMENTS]"


def prompt_spec(prompt: Any) -> CommandSpec:
    help = prompt.description or f"MCP prompt {prompt.name} of {prompt.server}"
    return CommandSpec(
        prompt.command, f"({prompt.server}) {help}", ACTION, f"/{prompt.command}", arg=usage(prompt), custom=True
    )


def prompt_specs(mcp: Any, location: str) -> tuple[CommandSpec, ...]:
    """Every prompt of the servers here as the command registry lists it; none before the runtime is up."""
    if mcp is None:
        return ()
    return tuple(prompt_spec(p) for _, p in sorted(prompts_here(mcp.mcp_status(), location).items()))
