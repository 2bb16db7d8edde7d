"""Reading recorded provider requests."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.request.compaction_text import SUMMARY_SYSTEM


def texts(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content or [])


def roles(body: dict[str, Any]) -> list[str]:
    return [m["role"] for m in body["messages"]]


def user_texts(body: dict[str, Any]) -> list[str]:
    return [texts(m) for m in body["messages"] if m["role"] == "user"]


def is_summary_request(body: dict[str, Any]) -> bool:
    return texts(body["messages"][0]) == SUMMARY_SYSTEM and "tools" not in body


def dumped(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


def echo(call_id: str, payload: str, **extra: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "echo", "arguments": {"text": payload}}], **extra}


SUMMARY = "## Objective\nShip the parser fix.\n## Next Move\nRun the tests."
