"""The Gemini API side of ``generate.py``'s fake model, and the script Gemini CLI runs against it.

Gemini CLI (``gemini -p``) calls ``models/<model>:streamGenerateContent?alt=sse``
for its turns (server-sent events, each a whole ``GenerateContentResponse``
chunk), ``:generateContent`` for its utility calls (the compression's summary
and its check, routing, next-speaker checks) and ``:countTokens``. Tool calls
are ``functionCall`` parts with the ``id`` the script gives, so the session
file names them ``call_ls01``…; reasoning is a ``thought: true`` part. The
compression's summary requests carry the ``<state_snapshot>`` system
instruction and are answered here, not from the script. Stdlib only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from turns import opening  # beside this script

SNAPSHOT = (
    "<state_snapshot>\n<overall_goal>Edit main.py to print hello, world.</overall_goal>\n"
    "<key_knowledge>Summary: listed files, read and edited main.py, wrote notes.md.</key_knowledge>\n"
    "</state_snapshot>"
)


def last_key(body: dict[str, Any]) -> str:
    """What a Gemini request answers: the id of the last function response, or the last user text."""
    contents = body.get("contents") or []
    if not contents:
        return ""
    parts = contents[-1].get("parts") or []
    for part in reversed(parts):
        if "functionResponse" in part:
            return "result:" + str(part["functionResponse"].get("id") or part["functionResponse"].get("name"))
    return "text:" + json.dumps([p.get("text") for p in parts if "text" in p], ensure_ascii=False)


def tool_names(body: dict[str, Any]) -> list[str]:
    return [d.get("name") for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]


def is_compression(body: dict[str, Any]) -> bool:
    system = body.get("systemInstruction") or {}
    texts = [p.get("text") or "" for p in system.get("parts") or []] if isinstance(system, dict) else [str(system)]
    return any("<state_snapshot>" in t for t in texts)


def response(turn: dict[str, Any], model: str) -> dict[str, Any]:
    """One ``GenerateContentResponse`` holding the whole turn."""
    parts: list[dict[str, Any]] = []
    if turn.get("thinking"):
        parts.append({"text": turn["thinking"], "thought": True})
    if turn.get("text"):
        parts.append({"text": turn["text"]})
    tool = turn.get("tool")
    if tool:
        parts.append({"functionCall": {"id": turn["id"], "name": tool["name"], "args": tool["input"]}})
    prompt = int(turn.get("input_tokens", 1200))
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": 40,
            "cachedContentTokenCount": 300,
            "thoughtsTokenCount": 8 if turn.get("thinking") else 0,
            "totalTokenCount": prompt + 48,
        },
        "modelVersion": model,
        "responseId": "resp-" + str(turn.get("id") or "text"),
    }


def utility(body: dict[str, Any], model: str) -> dict[str, Any]:
    """A non-streamed utility call: the compression's summary, or a JSON answer where one is asked for."""
    if is_compression(body):
        return response({"text": SNAPSHOT}, model)
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json":
        return response(
            {"text": json.dumps({"reasoning": "fixture", "next_speaker": "user", "model_choice": "pro"})}, model
        )
    return response({"text": "ok"}, model)


def answer(handler: Any, path: str, body: dict[str, Any]) -> None:
    """Answer one Gemini API call on ``generate.py``'s handler (its ``_json`` and ``_chunk``, its script)."""
    model, _, method = path.rsplit("/", 1)[-1].partition(":")
    if method == "countTokens":
        handler._json({"totalTokens": 100})
        return
    if method != "streamGenerateContent":
        handler._json(utility(body, model))
        return
    turn = handler.server.script.take(body)
    whole = response(turn, model)
    parts = whole["candidates"][0]["content"]["parts"]
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for i, part in enumerate(parts):  # one chunk a part, as the API streams them; the last closes the turn
        last = i == len(parts) - 1
        chunk = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
            "modelVersion": model,
            "responseId": whole["responseId"],
        }
        if last:
            chunk["candidates"][0]["finishReason"] = "STOP"
            chunk["usageMetadata"] = whole["usageMetadata"]
        handler._chunk(f"data: {json.dumps(chunk)}\r\n\r\n".encode())
    handler._chunk(b"")


def turns(proj: Path) -> list[dict[str, Any]]:
    main = str(proj / "main.py")
    return [
        *opening(
            "run_shell_command",
            read={"name": "read_file", "input": {"file_path": main}},
            edit={
                "name": "replace",
                "input": {
                    "file_path": main,
                    "instruction": "Print hello, world instead of hello.",
                    "old_string": "print('hello')",
                    "new_string": "print('hello, world')",
                },
            },
        ),
        {
            "after": "call_edit01",
            "id": "call_write01",
            "tool": {
                "name": "write_file",
                "input": {"file_path": str(proj / "notes.md"), "content": "# Notes\nhello\n"},
            },
        },
        {
            "after": "call_write01",
            "id": "call_img01",
            "tool": {"name": "read_file", "input": {"file_path": str(proj / "pic.png")}},
        },
        {"after": "call_img01", "text": "Done: main.py now prints hello, world. The picture is a single pixel."},
        {
            "after": "ANOTHER-TASK",
            "id": "call_status01",
            "text": "Checking the tree once more.",
            "tool": {"name": "run_shell_command", "input": {"command": "git status --short"}},
            "input_tokens": 900000,  # past the compression threshold: the next turn compresses first
        },
        {"after": "call_status01", "text": "Second answer after resuming."},
    ]
