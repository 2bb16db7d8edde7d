"""Projected history (:class:`Request`) -> LiteLLM's OpenAI-shaped messages.

Rules (DESIGN §6, §5.8):
- only ``request.system`` is system-role; :class:`SystemReminder` s become
  user-role ``<system-reminder>`` text at their place (LiteLLM hoists every
  system message of an Anthropic request to the top);
- every tool use is answered by exactly one tool message right after its
  assistant message (an unsettled one as an interrupted error);
- images (tool results, attachments) go only to a model that can see them
  (``request.supports_vision``), and only the newest within a request's caps
  (``images.plan_images``); each other one is a placeholder line. An image
  from a tool goes inside its tool message for providers whose tool results
  take images (Anthropic), and in one user message after the tool messages
  for the others (OpenAI's tool messages take text only);
- reasoning goes back natively (``thinking_blocks``) only when the turn's model
  is the request's model and the step did not fail; otherwise it becomes plain
  assistant text and provider metadata is dropped;
- Anthropic prompt caching: ``cache_control`` on the last system block and on
  the last message, i.e. the stable prefix of the next request.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.llm.images import ImagePlan, image_url, plan_images
from agent_tui.llm.types import (
    AssistantTurn,
    ReasoningBlock,
    Request,
    RequestFile,
    RequestImage,
    RequestText,
    SystemReminder,
    TextBlock,
    ToolUse,
    UserTurn,
)

INTERRUPTED = "Tool execution interrupted"
_CACHE = {"type": "ephemeral"}
IMAGES_IN_TOOL_RESULTS = frozenset({"anthropic"})
"""Providers whose tool results carry image blocks (LiteLLM turns a tool message's ``image_url``
parts into ``tool_result`` image blocks for Anthropic)."""


def reminder_text(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


def _user_content(turn: UserTurn, images: ImagePlan) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for part in turn.parts:
        match part:
            case RequestText(text=text) if text:
                content.append({"type": "text", "text": text})
            case RequestFile(path=path, mime=mime, text=text):
                body = (
                    f'<file path="{path}">\n{text}\n</file>'
                    if text is not None
                    else f"[attached file: {path} ({mime})]"
                )
                content.append({"type": "text", "text": body})
            case RequestImage() if images.shows(part):
                content.append(image_url(part))
            case RequestImage():
                content.append({"type": "text", "text": images.placeholder(part)})
    return content


def _tool_message(
    call_id: str, text: str, returned: list[RequestImage], images: ImagePlan, inline: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The tool message, and the image parts still to send after it (none when they went inside)."""
    shown = [image_url(image) for image in returned if images.shows(image)]
    text = "\n".join([text or "(no output)", *(images.placeholder(i) for i in returned if not images.shows(i))])
    if shown and inline:
        return {"role": "tool", "tool_call_id": call_id, "content": [{"type": "text", "text": text}, *shown]}, []
    return {"role": "tool", "tool_call_id": call_id, "content": text}, shown


def _native(turn: AssistantTurn, model: str) -> bool:
    return turn.model == model and not turn.failed


def _assistant(turn: AssistantTurn, model: str, images: ImagePlan, inline_images: bool) -> list[dict[str, Any]]:
    native = _native(turn, model)
    texts: list[str] = []
    thinking: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    following: list[dict[str, Any]] = []
    for part in turn.parts:
        match part:
            case TextBlock(text=text) if text:
                texts.append(text)
            case ReasoningBlock(text=text, provider_meta=meta):
                blocks = meta.get("thinking_blocks") if native else None
                if blocks:
                    thinking.extend(blocks)
                elif not native and text:
                    texts.append(text)
            case ToolUse(call_id=call_id, name=name, input=value, result=result):
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(value, ensure_ascii=False)},
                    }
                )
                ok, text, returned = (
                    (False, INTERRUPTED, []) if result is None else (result.ok, result.text, result.images)
                )
                text = text if ok else (text if text.lower().startswith("error") else f"Error: {text}")
                result_message, after = _tool_message(call_id, text, returned, images, inline_images)
                results.append(result_message)
                following.extend(after)
    if not texts and not calls:
        return []
    message: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) if texts else None}
    if calls:
        message["tool_calls"] = calls
    if thinking:
        message["thinking_blocks"] = thinking
    out = [message, *results]
    if following:
        out.append(
            {"role": "user", "content": [{"type": "text", "text": "Images returned by the tools above:"}, *following]}
        )
    return out


def lower_messages(request: Request, provider: str = "") -> list[dict[str, Any]]:
    """System prompt(s) first, then history in order."""
    inline_images = provider in IMAGES_IN_TOOL_RESULTS
    images = plan_images(request)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": [{"type": "text", "text": text}]} for text in request.system if text
    ]
    for item in request.messages:
        match item:
            case UserTurn():
                content = _user_content(item, images)
                if content:
                    messages.append({"role": "user", "content": content})
            case SystemReminder(text=text):
                messages.append({"role": "user", "content": [{"type": "text", "text": reminder_text(text)}]})
            case AssistantTurn():
                messages.extend(_assistant(item, request.model, images, inline_images))
    return messages


def _mark(message: dict[str, Any]) -> None:
    content = message.get("content")
    if isinstance(content, str) and content:
        message["content"] = [{"type": "text", "text": content, "cache_control": _CACHE}]
    elif isinstance(content, list) and content:
        last = dict(content[-1])
        last["cache_control"] = _CACHE
        message["content"] = [*content[:-1], last]


def add_cache_control(messages: list[dict[str, Any]]) -> None:
    """Two breakpoints (of Anthropic's four): end of the system prompt, end of the history."""
    systems = [m for m in messages if m["role"] == "system"]
    if systems:
        _mark(systems[-1])
    if messages and messages[-1]["role"] != "system":
        _mark(messages[-1])


def lower_tools(request: Request) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in request.tools
    ]


def thinking_replayable(messages: list[dict[str, Any]]) -> bool:
    """Anthropic with thinking on needs the last tool-calling assistant message to start
    with its signed thinking; after a model switch or a failed step there is none."""
    last = next((m for m in reversed(messages) if m["role"] == "assistant" and m.get("tool_calls")), None)
    return last is None or bool(last.get("thinking_blocks"))


def completion_kwargs(request: Request, provider: str) -> dict[str, Any]:
    """Everything for ``litellm.acompletion`` except the streaming switches."""
    messages = lower_messages(request, provider)
    if request.prompt_cache and provider == "anthropic":
        add_cache_control(messages)
    kwargs: dict[str, Any] = {"model": request.model, "messages": messages}
    tools = lower_tools(request)
    if tools:
        kwargs["tools"] = tools
    if request.api_base:
        kwargs["api_base"] = request.api_base
    if request.api_key:
        kwargs["api_key"] = request.api_key
    if request.max_tokens:
        kwargs["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    kwargs.update(request.extra)
    if provider == "anthropic" and kwargs.get("thinking") and not thinking_replayable(messages):
        # The real API refuses this request; thinking resumes once the tool loop ends.
        kwargs.pop("thinking")
    return kwargs
