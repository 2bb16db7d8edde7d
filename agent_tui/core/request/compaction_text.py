"""History as plain text for compaction: units, the recent cut, the summary shape.

Compaction works on *units*: a user prompt, a system note, or one assistant
step with its tool calls and their results. A unit is never split, so a tool
call and its result always land on the same side of the cut. Everything is
plain text: provider-native assistant, reasoning and tool messages never cross
the compaction boundary (reasoning is left out entirely — its conclusions live
in the text and tool calls around it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from agent_tui.core.log import events as ev
from agent_tui.core.log.records import MessageRecord, ToolCallRecord
from agent_tui.core.request.shell_text import shell_text

HEADINGS = ("Objective", "Important Details", "Work State", "Next Move")
NONE = "(none)"
CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1600
"""One image as the providers count it (Anthropic scales an image to ~1.15 megapixels, ~1,600
tokens; OpenAI's high detail is less), not its base64 length, which is thousands of times more."""
SUMMARY_TOOL_CHARS = 4_000  # a tool result as the summariser sees it (head + tail)
_SEPARATOR = "\n\n"

SUMMARY_SYSTEM = f"""You compact the conversation of a coding agent so that it can continue in a fresh context.
Write a continuation checkpoint in Markdown with exactly these four headings, in this order, each present:

## Objective
What the user wants overall, and any constraints or preferences they stated.
## Important Details
Facts needed to continue: file paths, commands, identifiers, decisions, error messages, results.
## Work State
Three short lists: Completed, Active, Blocked.
## Next Move
The immediate next action, then the following ones.

Write {NONE} under a heading with nothing to say. Keep paths, names and commands exact.
Do not call tools and do not add other headings. Output only the checkpoint."""


@dataclass(frozen=True)
class Unit:
    """One uncuttable piece of history: verbatim text, and the clipped text the summariser reads."""

    text: str
    brief: str


@dataclass(frozen=True)
class CompactionInput:
    """What one compaction works from."""

    previous_summary: str | None
    previous_recent: str | None
    older: list[Unit]  # summarised
    recent: list[Unit]  # kept verbatim

    @property
    def recent_text(self) -> str:
        return _SEPARATOR.join(unit.text for unit in self.recent)


def active_history(history: list[MessageRecord]) -> tuple[MessageRecord | None, list[MessageRecord]]:
    """The newest ended compaction row (if any) and the messages after it."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.kind == "compaction" and message.data.get("state") == "ended":
            return message, history[index + 1 :]
    return None, history


def units(messages: Iterable[MessageRecord], tool_calls: Iterable[ToolCallRecord]) -> list[Unit]:
    calls = {(c.assistant_message_id, c.call_id): c for c in tool_calls}
    out: list[Unit] = []
    for message in messages:
        text = _serialise(message, calls, None)
        if text:
            out.append(Unit(text, _serialise(message, calls, SUMMARY_TOOL_CHARS) or text))
    return out


def plan(history: list[MessageRecord], tool_calls: list[ToolCallRecord], keep_tokens: int) -> CompactionInput | None:
    """Split the active history at a unit boundary; None when there is nothing to compact.

    The recent part is the longest suffix that fits ``keep_tokens``, but the
    older part always keeps at least one unit: a compaction must summarise something.
    """
    previous, active = active_history(history)
    found = units(active, tool_calls)
    if not found:
        return None
    keep_chars = keep_tokens * CHARS_PER_TOKEN
    cut, used = len(found), 0
    while cut > 1:
        size = len(found[cut - 1].text) + len(_SEPARATOR)
        if used + size > keep_chars:
            break
        used += size
        cut -= 1
    prev = previous.data if previous is not None else {}
    return CompactionInput(prev.get("summary"), prev.get("recent") or None, found[:cut], found[cut:])


def summary_material(source: CompactionInput, max_chars: int | None) -> str:
    """The user message the summariser reads; the oldest units give way first when too long."""
    head: list[str] = []
    if source.previous_summary:
        head.append(f"<previous-checkpoint>\n{source.previous_summary}\n</previous-checkpoint>")
        head.append(
            "Update the previous checkpoint with the newer conversation below: keep what still "
            "matters, drop what is obsolete."
        )
    if source.previous_recent:
        head.append(f"<earlier-recent-context>\n{source.previous_recent}\n</earlier-recent-context>")
    tail = []
    if source.recent:
        tail.append(
            "<recent-context>\nThese newest messages are kept verbatim after your checkpoint; use them "
            f"for Work State and Next Move but do not copy them.\n\n{source.recent_text}\n</recent-context>"
        )
    fixed = sum(len(part) + 2 for part in head + tail) + 64
    kept = [unit.brief for unit in source.older]
    dropped = 0
    if max_chars is not None:
        total = fixed + sum(len(text) + len(_SEPARATOR) for text in kept)
        while len(kept) > 1 and total > max_chars:
            total -= len(kept.pop(0)) + len(_SEPARATOR)
            dropped += 1
        if kept and total > max_chars:  # one unit alone is too long: keep its head and tail
            kept[0] = clip(kept[0], max(200, len(kept[0]) - (total - max_chars) - 64))
    body = _SEPARATOR.join(kept)
    if dropped:
        body = f"[{dropped} earlier messages omitted: too long to summarise]\n\n{body}"
    return "\n\n".join([*head, f"<conversation>\n{body}\n</conversation>", *tail])


def enforce_headings(text: str) -> str:
    """Exactly the four headings, in order, each with a body or ``(none)``.

    Text under an unknown heading stays with the section before it; a summary
    without any of the headings is kept whole under Important Details.
    """
    sections: dict[str, list[str]] = {name: [] for name in HEADINGS}
    current: str | None = None
    preamble: list[str] = []
    for line in text.strip().splitlines():
        name = _heading(line)
        if name is not None:
            current = name
            continue
        if _HEADING.match(line) and line.lstrip().startswith("## "):
            line = "#" + line.lstrip()  # another top-level heading becomes a sub-heading of its section
        (sections[current] if current is not None else preamble).append(line)
    if current is None:
        sections["Important Details"] = preamble
    blocks = []
    for name in HEADINGS:
        body = "\n".join(sections[name]).strip()
        blocks.append(f"## {name}\n{body or NONE}")
    return "\n\n".join(blocks)


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(.+?)\s*#*\s*$")


def _heading(line: str) -> str | None:
    match = _HEADING.match(line)
    if match is None:
        return None
    title = match.group(1).strip(" *_:").lower()
    for name in HEADINGS:
        if title == name.lower():
            return name
    return None


def checkpoint_text(summary: str, recent: str) -> str:
    """What the model sees instead of the compacted prefix."""
    text = (
        "The conversation so far was compacted. This checkpoint replaces the earlier messages; "
        f"continue from it.\n\n{summary.strip()}"
    )
    if recent.strip():
        text += f"\n\n## Recent Context (verbatim, oldest first)\n\n{recent.strip()}"
    return text


# -- serialisation ----------------------------------------------------------------


def _serialise(
    message: MessageRecord, calls: dict[tuple[str, str], ToolCallRecord], tool_chars: int | None
) -> str | None:
    data = message.data
    match message.kind:
        case "user":
            body = ev.prompt_text(data.get("prompt") or []).strip()
            return f"User:\n{body}" if body else None
        case "system" | "synthetic":
            body = (data.get("text") or "").strip()
            return f"System note:\n{body}" if body else None
        case "shell":
            return f"User:\n{shell_text(data)}"
        case "assistant":
            return _assistant_text(message, calls, tool_chars)
    return None


def _assistant_text(
    message: MessageRecord, calls: dict[tuple[str, str], ToolCallRecord], tool_chars: int | None
) -> str | None:
    lines: list[str] = []
    for part in message.data.get("parts", []):
        match part.get("type"):
            case "text" if part.get("text"):
                lines.append(part["text"])
            case "tool":
                call = calls.get((message.id, part["call_id"]))
                if call is not None:
                    lines.append(_tool_text(call, tool_chars))
    if not lines:
        return None
    error = message.data.get("error") if message.data.get("state") == "failed" else None
    if error:
        lines.append(f"[step failed: {error.get('message', error.get('type', 'error'))}]")
    return "Assistant:\n" + "\n".join(lines)


def _tool_text(call: ToolCallRecord, tool_chars: int | None) -> str:
    arguments = json.dumps(call.input, ensure_ascii=False, sort_keys=True)
    match call.state:
        case "success":
            status, result = "ok", (call.output or {}).get("text", "")
        case "failed":
            status, result = "error", (call.error or {}).get("message") or "Tool failed"
        case _:
            status, result = "error", "Tool execution interrupted"
    if tool_chars is not None:
        arguments, result = clip(arguments, tool_chars), clip(result, tool_chars)
    return f"[tool call {call.name} {arguments}]\n[tool result {status}]\n{result or '(no output)'}"


def clip(text: str, limit: int) -> str:
    """Head and tail of a long text with a marker saying how much is left out."""
    if len(text) <= limit:
        return text
    half = max(1, limit // 2)
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters omitted …]\n{text[-half:]}"
