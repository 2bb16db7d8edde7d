"""A session as a readable Markdown transcript: prompts, answers, and the rest folded in ``<details>``.

Tool calls with their input and output, reasoning, instruction updates and
compaction summaries are folded so the conversation reads top to bottom;
errors are shown. Like the JSONL export it holds what the model sees.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from agent_tui.core.log import events as ev
from agent_tui.core.log.records import MessageRecord, SessionRecord, ToolCallRecord
from agent_tui.core.transfer.export_jsonl import iso


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


def _tool(call: ToolCallRecord) -> str:
    args = json.dumps(call.input, ensure_ascii=False, indent=2)
    if call.state == "failed":
        result = f"**failed** ({(call.error or {}).get('type')}): {(call.error or {}).get('message', '')}"
    elif call.state == "running":
        result = "*(did not finish)*"
    else:
        result = _fence((call.output or {}).get("text", ""))
    mark = {"success": "✓", "failed": "✗"}.get(call.state, "…")
    return _details(f"{mark} tool <code>{call.name}</code>", f"{_fence(args, 'json')}\n\n{result}")


def _assistant(m: MessageRecord, calls: dict[tuple[str, str], ToolCallRecord]) -> Iterator[str]:
    for part in m.data.get("parts", []):
        match part["type"]:
            case "reasoning" if part.get("text"):
                yield _details("reasoning", part["text"])
            case "text" if part.get("text"):
                yield part["text"]
            case "tool":
                call = calls.get((m.id, part["call_id"]))
                if call is not None:
                    yield _tool(call)
    error = m.data.get("error")
    if m.data.get("state") == "failed" and error:
        yield f"> **error** ({error.get('type')}): {error.get('message')}"


def markdown(session: SessionRecord, messages: list[MessageRecord], calls: list[ToolCallRecord]) -> str:
    by_call = {(c.assistant_message_id, c.call_id): c for c in calls}
    out = [
        f"# {session.title or 'Untitled session'}",
        f"*agent-tui session `{session.id}` · {session.location} · model {session.model or '-'} · "
        f"started {iso(session.created)}*",
    ]
    speaker = None
    for m in messages:
        match m.kind:
            case "user":
                out.append(f"## User\n\n{ev.prompt_text(m.data['prompt'])}")
                speaker = "user"
            case "assistant":
                if speaker != "assistant":
                    out.append("## Assistant")
                    speaker = "assistant"
                out.extend(_assistant(m, by_call))
            case "system":
                label = {"hook": "hook output", "import": "import note"}.get(
                    m.data.get("source") or "", "instructions updated"
                )
                out.append(_details(label, m.data["text"]))
            case "compaction":
                d = m.data
                if d.get("state") == "failed":
                    out.append(f"> **compaction failed**: {(d.get('error') or {}).get('message')}")
                else:
                    out.append("---\n\n" + _details(f"compacted ({d.get('reason')})", d.get("summary") or ""))
                speaker = None
    return "\n\n".join(out) + "\n"
