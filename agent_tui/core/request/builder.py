"""Projected history -> the LLM adapter's :class:`llm.Request` messages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agent_tui.core.log.records import MessageRecord, ToolCallRecord
from agent_tui.core.request.compaction_text import checkpoint_text
from agent_tui.core.request.reminders import reminders_before
from agent_tui.core.request.shell_text import shell_text
from agent_tui.llm import types as llm
from agent_tui.vocab.kinds import TOOL_INTERRUPTED, ErrorType


def history_messages(
    messages: Sequence[MessageRecord], tool_calls: Iterable[ToolCallRecord], agent: str | None = None
) -> list[llm.HistoryMessage]:
    """``agent``: the agent of the step about to run (its reminders go at the end); None to
    render the history alone (an estimate)."""
    calls = {(call.assistant_message_id, call.call_id): call for call in tool_calls}
    seen_ids: dict[str, int] = {}
    reminders = reminders_before(messages, agent)
    out: list[llm.HistoryMessage] = []
    for index, message in enumerate(messages):
        out.extend(llm.SystemReminder(text=text) for text in reminders.get(index, ()))
        match message.kind:
            case "user":
                out.append(_user_turn(message.data))
            case "assistant":
                turn = _assistant_turn(message, calls, seen_ids)
                if turn is not None:
                    out.append(turn)
            case "shell":
                out.append(llm.UserTurn(parts=[llm.RequestText(text=shell_text(message.data))]))
            case "system" | "synthetic":
                text = message.data.get("text")
                if text:
                    out.append(llm.SystemReminder(text=text))
            case "compaction":
                if message.data.get("state") == "ended":
                    out = [llm.SystemReminder(text=_checkpoint_text(message.data))]
    out.extend(llm.SystemReminder(text=text) for text in reminders.get(len(messages), ()))
    return out


def _user_turn(data: dict[str, Any]) -> llm.UserTurn:
    parts: list[Any] = []
    for part in data.get("prompt", []):
        match part.get("type"):
            case "text":
                parts.append(llm.RequestText(text=part.get("text", "")))
            case "file":
                parts.append(
                    llm.RequestFile(path=part["path"], mime=part.get("mime") or "text/plain", text=part.get("text"))
                )
            case "image" if part.get("data"):
                parts.append(llm.RequestImage(mime=part["mime"], data=part["data"], path=part.get("path")))
            case "image":
                parts.append(llm.RequestText(text=f"[image: {part.get('path')}]"))
            case "agent" if part.get("text"):
                parts.append(llm.RequestText(text=part["text"]))
            case "resource":  # read like a mentioned file: <file path="server:uri">
                parts.append(
                    llm.RequestFile(
                        path=f"{part['server']}:{part['uri']}", mime=part.get("mime") or "text/plain", text=part["text"]
                    )
                )
    return llm.UserTurn(parts=parts or [llm.RequestText(text="")])


def _assistant_turn(
    message: MessageRecord, calls: dict[tuple[str, str], ToolCallRecord], seen_ids: dict[str, int]
) -> llm.AssistantTurn | None:
    data = message.data
    parts: list[Any] = []
    for part in data.get("parts", []):
        match part.get("type"):
            case "text" if part.get("text"):
                parts.append(llm.TextBlock(text=part["text"]))
            case "reasoning" if part.get("text") or part.get("provider_meta"):
                parts.append(
                    llm.ReasoningBlock(text=part.get("text", ""), provider_meta=part.get("provider_meta") or {})
                )
            case "tool":
                call = calls.get((message.id, part["call_id"]))
                if call is not None:
                    parts.append(_tool_use(call, _unique_call_id(call.call_id, seen_ids)))
    if not parts:
        return None
    return llm.AssistantTurn(model=data.get("model") or "", failed=data.get("state") == "failed", parts=parts)


def _unique_call_id(call_id: str, seen: dict[str, int]) -> str:
    """Call ids are unique only within a step; providers want them unique per request."""
    count = seen.get(call_id, 0)
    seen[call_id] = count + 1
    return call_id if count == 0 else f"{call_id}_{count + 1}"


def _tool_use(call: ToolCallRecord, call_id: str) -> llm.ToolUse:
    match call.state:
        case "success":
            output = call.output or {}
            result = llm.ToolUseResult(ok=True, text=output.get("text", ""), images=_images(output))
        case "failed":
            error = call.error or {}
            text = error.get("message") or "Tool failed"
            partial = (call.result_meta or {}).get("partial_output")
            if isinstance(partial, str) and partial:  # interrupted mid-run: what it had printed
                text = f"{text}. Its output until then:\n{partial}"
            result = llm.ToolUseResult(ok=False, text=text)
        case _:
            result = llm.ToolUseResult(ok=False, text=TOOL_INTERRUPTED)
    return llm.ToolUse(call_id=call_id, name=call.name, input=call.input, result=result)


def _images(output: dict[str, Any]) -> list[llm.RequestImage]:
    """The images a tool returned, as stored with its output (``path`` is '' for an MCP image)."""
    return [
        llm.RequestImage(mime=image["mime"], data=image["data"], path=image.get("path") or None)
        for image in output.get("images") or []
        if image.get("data") and image.get("mime")
    ]


def _checkpoint_text(data: dict[str, Any]) -> str:
    return checkpoint_text(data.get("summary") or "", data.get("recent") or "")


def needs_continuation(messages: list[MessageRecord]) -> bool:
    """The newest visible message is a completed assistant step that called tools."""
    for message in reversed(messages):
        if message.kind == "assistant":
            data = message.data
            called = any(part.get("type") == "tool" for part in data.get("parts", []))
            return data.get("state") == "ended" and called
        if message.kind == "user":
            return False
    return False


def was_cut_short(messages: list[MessageRecord]) -> bool:
    """The newest model-visible turn is a step that was stopped (a crash, an interrupt): an
    explicit run may continue from it (reference 001: "Explicit run may deliberately continue
    from durable projected history")."""
    for message in reversed(messages):
        if message.kind == "assistant":
            data = message.data
            return data.get("state") == "failed" and (data.get("error") or {}).get("type") == ErrorType.ABORTED
        if message.kind == "user":
            return False
    return False


def awaits_answer(messages: list[MessageRecord]) -> bool:
    """The newest model-visible turn is the user's (e.g. a crash before the step)."""
    for message in reversed(messages):
        if message.kind in ("user", "assistant"):
            return message.kind == "user"
    return False
