"""Request validation as strict as the real APIs, with their error shapes.

A request a real provider would reject must fail in our tests too, so the
checks below mirror the rules that bite agents in practice: tool calls and
results pairing, accepted roles, non-empty content, signed thinking blocks in
the right place. Each validator returns the 400 answer, or ``None``.
"""

from __future__ import annotations

import re
from typing import Any

from agent_tui.testing.fake_provider import anthropic_wire, openai_wire
from agent_tui.testing.fake_provider.frames import HttpError

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class Invalid(Exception):
    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


# --------------------------------------------------------------------------
# OpenAI chat completions

_OPENAI_ROLES = ("system", "developer", "user", "assistant", "tool")


def _openai_tools(tools: Any) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        raise Invalid("Invalid type for 'tools': expected an array.", "tools")
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(fn, dict):
            raise Invalid(f"Invalid value for 'tools[{i}]': expected a function tool.", f"tools[{i}]")
        if not _TOOL_NAME.match(str(fn.get("name", ""))):
            raise Invalid(
                f"Invalid 'tools[{i}].function.name': string does not match pattern.", f"tools[{i}].function.name"
            )
        if "parameters" in fn and not isinstance(fn["parameters"], dict):
            raise Invalid(
                f"Invalid type for 'tools[{i}].function.parameters': expected an object.",
                f"tools[{i}].function.parameters",
            )


def _openai_content(message: dict[str, Any], i: int, *, optional: bool) -> None:
    content = message.get("content")
    if content is None:
        if optional:
            return
        raise Invalid("Invalid value for 'content': expected a string, got null.", f"messages.[{i}].content")
    if isinstance(content, str):
        return
    if not isinstance(content, list) or not content:
        raise Invalid(
            f"Invalid 'messages[{i}].content': expected a string or a non-empty array.", f"messages.[{i}].content"
        )
    for j, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in ("text", "image_url", "input_audio", "file", "refusal"):
            raise Invalid(
                f"Invalid value: '{kind}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', and 'file'.",
                f"messages.[{i}].content.[{j}].type",
            )


def _openai_text_only(message: dict[str, Any], i: int) -> None:
    """A tool message's content is a string or text parts: images go in user messages."""
    content = message.get("content")
    for j, part in enumerate(content if isinstance(content, list) else []):
        if part.get("type") != "text":
            raise Invalid(
                f"Invalid value: '{part.get('type')}'. Supported values are: 'text'.",
                f"messages.[{i}].content.[{j}].type",
            )


def _openai_unanswered(open_calls: dict[str, int], opened_at: int) -> Invalid:
    missing = ", ".join(open_calls)
    return Invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        f"'tool_call_id'. The following tool_call_ids did not have response messages: {missing}",
        f"messages.[{opened_at}].role",
    )


def _openai_tool_calls(calls: list[Any], i: int, open_calls: dict[str, int]) -> None:
    """An assistant message's tool calls, each opened in ``open_calls`` until a tool message answers it."""
    for j, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("arguments"), str) or not fn.get("name"):
            raise Invalid(
                f"Missing required parameter: 'messages[{i}].tool_calls[{j}].function'.",
                f"messages.[{i}].tool_calls.[{j}]",
            )
        if not call.get("id"):
            raise Invalid(
                f"Missing required parameter: 'messages[{i}].tool_calls[{j}].id'.",
                f"messages.[{i}].tool_calls.[{j}].id",
            )
        open_calls[call["id"]] = j


def check_openai(body: dict[str, Any]) -> None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise Invalid("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Invalid(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            "messages",
        )
    _openai_tools(body.get("tools"))
    open_calls: dict[str, int] = {}
    opened_at = -1
    answered: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in _OPENAI_ROLES:
            raise Invalid(
                f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
                f"messages.[{i}].role",
            )
        if open_calls and role != "tool":
            raise _openai_unanswered(open_calls, opened_at)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id in answered:
                raise Invalid(
                    f"Invalid parameter: duplicate response for tool_call_id '{call_id}'.",
                    f"messages.[{i}].tool_call_id",
                )
            if call_id not in open_calls:
                raise Invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                )
            del open_calls[call_id]
            answered.add(call_id)
            _openai_content(message, i, optional=False)
            _openai_text_only(message, i)
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            _openai_content(message, i, optional=bool(calls))
            _openai_tool_calls(calls, i, open_calls)
            opened_at = i
        else:
            _openai_content(message, i, optional=False)
    if open_calls:
        raise _openai_unanswered(open_calls, opened_at)


def validate_openai(body: dict[str, Any]) -> HttpError | None:
    try:
        check_openai(body)
    except Invalid as error:
        return HttpError(400, openai_wire.error_body(error.message, "invalid_request_error", None, error.param))
    return None


# --------------------------------------------------------------------------
# Anthropic messages

_USER_BLOCKS = {"text", "image", "document", "tool_result", "search_result"}
_ASSISTANT_BLOCKS = {"text", "tool_use", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result"}


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        if not content:
            raise Invalid(
                f"{where}: all messages must have non-empty content except for the optional final assistant message"
            )
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise Invalid(f"{where}.content: Input should be a valid list")
    return content


_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_TOOL_RESULT_BLOCKS = {"text", "image", "document", "search_result"}


def _check_image(block: dict[str, Any], where: str) -> None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") not in ("base64", "url"):
        raise Invalid(
            f"{where}.source: Input tag '{(source or {}).get('type')}' found using 'type' does not match "
            "any of the expected tags: 'base64', 'url'"
        )
    if source["type"] == "base64":
        if source.get("media_type") not in _IMAGE_TYPES:
            raise Invalid(
                f"{where}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', "
                "'image/gif' or 'image/webp'"
            )
        if not isinstance(source.get("data"), str) or not source["data"]:
            raise Invalid(f"{where}.source.base64.data: Field required")


def _check_tool_result(block: dict[str, Any], where: str) -> None:
    content = block.get("content")
    for k, inner in enumerate(content if isinstance(content, list) else []):
        _check_block(inner, _TOOL_RESULT_BLOCKS, f"{where}.content.{k}", "user")


def _check_block(block: Any, allowed: set[str], where: str, role: str) -> str:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind not in allowed:
        raise Invalid(
            f"{where}.type: Input tag '{kind}' found using 'type' is not allowed in a message with role '{role}'"
        )
    if kind == "text" and not block.get("text"):
        raise Invalid("messages: text content blocks must be non-empty")
    if kind == "image":
        _check_image(block, where)
    if kind == "tool_result":
        _check_tool_result(block, where)
    if kind == "thinking":
        if not block.get("signature"):
            raise Invalid(f"{where}.thinking.signature: Field required")
        if not isinstance(block.get("thinking"), str):
            raise Invalid(f"{where}.thinking.thinking: Field required")
    if kind == "tool_use" and not (block.get("id") and block.get("name") and isinstance(block.get("input"), dict)):
        raise Invalid(f"{where}: tool_use blocks need id, name and an object input")
    return kind


def _count_cache_control(body: dict[str, Any]) -> int:
    count = 0
    system = body.get("system")
    for item in [*(body.get("tools") or []), *(system if isinstance(system, list) else [])]:
        count += isinstance(item, dict) and "cache_control" in item
    for message in body.get("messages") or []:
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            count += sum(1 for b in message["content"] if isinstance(b, dict) and "cache_control" in b)
    return count


def _anthropic_system_and_tools(body: dict[str, Any]) -> None:
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        for j, block in enumerate(system):
            if not isinstance(block, dict) or block.get("type") != "text" or not block.get("text"):
                raise Invalid(f"system.{j}: system blocks must be non-empty text blocks")
    for j, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool, dict) or not _TOOL_NAME.match(str(tool.get("name", ""))):
            raise Invalid(f"tools.{j}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'")
        if tool.get("type") in (None, "custom") and not isinstance(tool.get("input_schema"), dict):
            raise Invalid(f"tools.{j}.custom.input_schema: Field required")
    if (n := _count_cache_control(body)) > 4:
        raise Invalid(f"A maximum of 4 blocks with cache_control may be provided. Found {n}.")


def _anthropic_unanswered(pending: list[str], pending_at: int) -> Invalid:
    return Invalid(
        f"messages.{pending_at}: `tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{', '.join(pending)}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )


def _anthropic_user_turn(blocks: list[dict[str, Any]], where: str, pending: list[str], pending_at: int) -> None:
    """A user message's blocks: its tool results answer exactly the previous message's ``pending`` tool uses."""
    results: list[str] = []
    for j, block in enumerate(blocks):
        if _check_block(block, _USER_BLOCKS, f"{where}.content.{j}", "user") == "tool_result":
            use_id = block.get("tool_use_id")
            if use_id in results:
                raise Invalid(
                    f"{where}.content.{j}: each tool_use must have a single result. "
                    f"Found multiple `tool_result` blocks with id: {use_id}"
                )
            if use_id not in pending:
                raise Invalid(
                    f"{where}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {use_id}. "
                    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )
            results.append(use_id)
    missing = [p for p in pending if p not in results]
    if missing:
        raise _anthropic_unanswered(missing, pending_at)


def _anthropic_assistant_turn(blocks: list[dict[str, Any]], where: str, seen_ids: set[str], pending: list[str]) -> bool:
    """An assistant message's blocks; its tool uses go to ``seen_ids`` and ``pending``. True if it used a tool."""
    saw_tool_use = False
    for j, block in enumerate(blocks):
        kind = _check_block(block, _ASSISTANT_BLOCKS, f"{where}.content.{j}", "assistant")
        if kind in ("thinking", "redacted_thinking") and saw_tool_use:
            raise Invalid(
                f"{where}.content.{j}: `thinking` blocks must come before `tool_use` blocks in an assistant message"
            )
        if kind == "tool_use":
            saw_tool_use = True
            if block["id"] in seen_ids:
                raise Invalid(f"{where}.content.{j}: `tool_use` ids must be unique. Found duplicate id: {block['id']}")
            seen_ids.add(block["id"])
            pending.append(block["id"])
    return saw_tool_use


def check_anthropic(body: dict[str, Any]) -> None:
    if not isinstance(body.get("max_tokens"), int):
        raise Invalid("max_tokens: Field required")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Invalid("messages: at least one message is required")
    _anthropic_system_and_tools(body)
    thinking_on = isinstance(body.get("thinking"), dict) and body["thinking"].get("type") == "enabled"
    seen_ids: set[str] = set()
    pending: list[str] = []
    pending_at = -1
    last_tool_assistant: tuple[int, list[dict[str, Any]]] | None = None
    for i, message in enumerate(messages):
        where = f"messages.{i}"
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            raise Invalid(f"{where}.role: Input should be 'user' or 'assistant'")
        blocks = _blocks(message.get("content"), where)
        if not blocks and not (role == "assistant" and i == len(messages) - 1):
            raise Invalid(
                f"{where}: all messages must have non-empty content except for the optional final assistant message"
            )
        if role == "user":
            _anthropic_user_turn(blocks, where, pending, pending_at)
            pending = []
        else:
            if pending:
                raise _anthropic_unanswered(pending, pending_at)
            if _anthropic_assistant_turn(blocks, where, seen_ids, pending):
                last_tool_assistant = (i, blocks)
            pending_at = i
    if pending:
        raise _anthropic_unanswered(pending, pending_at)
    if thinking_on and last_tool_assistant is not None and last_tool_assistant[0] == len(messages) - 2:
        index, blocks = last_tool_assistant
        first = blocks[0].get("type")
        if first not in ("thinking", "redacted_thinking"):
            raise Invalid(
                f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first}`. "
                "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
                "(preceeding the lastmost set of `tool_use` and `tool_result` blocks)."
            )


def validate_anthropic(body: dict[str, Any]) -> HttpError | None:
    try:
        check_anthropic(body)
    except Invalid as error:
        return HttpError(400, anthropic_wire.error_body(error.message))
    return None
