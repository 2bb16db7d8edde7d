"""A server's ``sampling/createMessage`` read into a ``SamplingRequest`` (the connection builds the reply).

No SDK import: the params are read by attribute, as ``lowering`` reads a tool's
result. Text parts are kept; an image or audio part becomes a line saying what
it was; a tool use or tool result part (sampling with tools, which agent-tui
does not declare) is described the same way.
"""

from __future__ import annotations

from typing import Any

from agent_tui.vocab.sampling import SamplingMessage, SamplingRequest, described


def _part_text(part: Any) -> str:
    match getattr(part, "type", None):
        case "text":
            return str(getattr(part, "text", ""))
        case "image" | "audio" as kind:
            return described(kind, getattr(part, "mime_type", None))
        case other:
            return described(str(other or "content"), None)


def _message_text(content: Any) -> str:
    parts = content if isinstance(content, list | tuple) else [content]
    return "\n".join(_part_text(part) for part in parts)


def sampling_request(server: str, params: Any) -> SamplingRequest:
    """The request as the user is shown it and the model is asked it."""
    preferences = getattr(params, "model_preferences", None)
    dump = getattr(preferences, "model_dump", None)
    return SamplingRequest(
        server=server,
        messages=tuple(
            SamplingMessage(role="assistant" if m.role == "assistant" else "user", text=_message_text(m.content))
            for m in params.messages
        ),
        max_tokens=int(params.max_tokens),
        system_prompt=getattr(params, "system_prompt", None),
        temperature=getattr(params, "temperature", None),
        stop_sequences=tuple(getattr(params, "stop_sequences", None) or ()),
        model_preferences=dump(mode="json", exclude_none=True, by_alias=True) if callable(dump) else {},
    )
