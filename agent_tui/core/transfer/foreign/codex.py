"""Codex CLI's rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``), CLI versions 0.x.

Each line is ``{"timestamp", "type", "payload"}``. The first is ``session_meta``
(the session ``id``, ``cwd``, ``cli_version``); a file without it is an older
rollout layout this reader does not know. ``response_item`` lines are the
OpenAI Responses items the model saw and made: ``message`` (role ``user``,
``assistant``, or ``developer`` for Codex's own instructions), ``reasoning``
(its summary), ``function_call`` / ``custom_tool_call`` / ``local_shell_call``
and their ``*_output``. ``token_usage_record`` (or, before it, an
``event_msg`` ``token_count``) closes a response with its usage.
``turn_context`` names the model. ``compacted`` holds the compaction's summary
(the summary reply before it is the compaction's own and not kept twice).
An ``event_msg`` ``item_completed`` tells a call's exit code or status, so a
failed command imports as failed (``codex_exits``); other ``event_msg`` lines
repeat the items for Codex's UI and are passed over.

Tools: ``exec_command`` / ``shell`` / ``shell_command`` / ``local_shell_call``
are our ``bash``; one that runs ``apply_patch <<…`` (Codex applies it itself)
and the ``apply_patch`` tool are our ``apply_patch`` with the same patch;
``view_image`` is our ``read`` (which shows an image file to the model); every
other tool is kept under its own name.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.transfer.foreign import codex_exits, patches
from agent_tui.core.transfer.foreign.draft import (
    Draft,
    Imported,
    UnreadableSession,
    image,
    json_lines,
    must_fit,
    time_ms,
    usage_of,
)

AGENT, LABEL = "codex", "Codex"
MAJORS = ("0",)
CONTEXT_MARKS = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions instructions>", "<skills")
SHELLS = ("exec_command", "shell", "shell_command", "container.exec")
HEREDOC = re.compile(r"^\s*apply_patch\s+<<\s*['\"]?(\w+)['\"]?\n(.*?)\n\1\s*$", re.S)
BOOKKEEPING = {"event_msg", "turn_context", "world_state", "session_meta"}


def read(text: str, path: str) -> Imported:
    lines = json_lines(text, path)
    if not lines or lines[0].get("type") != "session_meta":
        raise UnreadableSession(
            f"{path}: no session_meta line first; not a Codex rollout of a version this build reads (Codex CLI 0.x)"
        )
    meta = lines[0].get("payload") or {}
    version = str(meta.get("cli_version") or "")
    if version.split(".")[0] not in MAJORS:
        raise UnreadableSession(
            f"{path}: Codex {version or '(no cli_version)'} wrote this rollout; this build reads the format of Codex CLI 0.x"
        )
    session_id, cwd = meta.get("id"), meta.get("cwd")
    if not isinstance(session_id, str) or not isinstance(cwd, str):
        raise UnreadableSession(f"{path}: session_meta names no id and cwd; not a Codex rollout")
    reader = _Reader(Draft(AGENT, LABEL), cwd)
    for number, line in enumerate(lines, 1):
        kind, payload, at = line.get("type"), line.get("payload") or {}, time_ms(line.get("timestamp"))
        with must_fit(path, f"line {number} ({kind})", "the Codex rollout format"):
            reader.line(kind, payload, at, number)
    if reader.instructions:
        reader.draft.note(
            f"Codex's own instructions and environment context ({reader.instructions} messages) were left out;"
            " this project's instructions apply"
        )
    return reader.draft.finish(source_id=session_id, location=cwd, path=path, version=version)


class _Reader:
    def __init__(self, draft: Draft, cwd: str) -> None:
        self.draft, self.cwd = draft, cwd
        self.model: str | None = None
        self.instructions = 0
        self.seen_usage_records = False
        self.shells: set[str] = set()  # call ids of shell calls (an apply_patch heredoc too)
        self.outcomes: dict[str, bool] = {}  # call id -> succeeded, as an item_completed event told

    def line(self, kind: Any, payload: dict[str, Any], at: int | None, number: int) -> None:
        match kind:
            case "turn_context":
                self.model = payload.get("model") or self.model
            case "response_item":
                self.item(payload, at)
            case "token_usage_record":
                self.seen_usage_records = True
                self.usage(payload.get("usage") or {})
            case "event_msg" if payload.get("type") == "item_completed":
                self.completed(payload.get("item"))
            case "event_msg" if payload.get("type") == "token_count" and not self.seen_usage_records:
                self.usage(((payload.get("info") or {}).get("last_token_usage")) or {})
            case "compacted":
                self.compacted(payload, at)
            case _ if kind in BOOKKEEPING:
                pass
            case _:
                self.draft.note(f"a {kind!r} line (line {number}) this reader does not know was left out", at)

    def item(self, item: dict[str, Any], at: int | None) -> None:
        draft = self.draft
        match item.get("type"):
            case "message":
                self._message(item, at)
            case "reasoning":
                summary = "\n\n".join(s.get("text") or "" for s in item.get("summary") or [])
                if summary:
                    draft.reasoning(summary, model=self.model, at=at)
                elif item.get("encrypted_content"):
                    draft.note("an encrypted reasoning item was left out", at)
            case "function_call":
                try:
                    given = json.loads(item.get("arguments") or "{}")
                except ValueError:
                    given = {"arguments": item.get("arguments")}
                self._call(
                    item["call_id"], item["name"], given if isinstance(given, dict) else {"arguments": given}, at
                )
            case "custom_tool_call":
                self._call(item["call_id"], item["name"], {"input": item.get("input") or ""}, at)
            case "local_shell_call":
                command = (item.get("action") or {}).get("command") or []
                self._call(item["call_id"], "shell", {"command": command}, at)
            case "function_call_output" | "custom_tool_call_output" | "local_shell_call_output":
                self._output(item, at)
            case other:
                draft.note(f"a Codex {other!r} item was left out", at)

    def _message(self, item: dict[str, Any], at: int | None) -> None:
        role, content = item.get("role"), item.get("content") or []
        texts = [c.get("text") or "" for c in content if c.get("type") in ("input_text", "output_text", "text")]
        if role == "assistant":
            self.draft.text("\n".join(texts), model=self.model, at=at)
            return
        if role != "user" or (texts and all(t.lstrip().startswith(CONTEXT_MARKS) for t in texts if t)):
            self.instructions += 1
            return
        parts: list[ev.PromptPart] = [ev.TextPart(text=t) for t in texts if t]
        for n, c in enumerate(c for c in content if c.get("type") == "input_image"):
            found = _data_image(c.get("image_url") or "", f"image-{n + 1}")
            if found is None:
                self.draft.note("an image given by URL, not inline, was left out", at)
            else:
                parts.append(
                    ev.ImagePart(path=found["path"], mime=found["mime"], data=found["data"], size=found["size"])
                )
        if parts:
            self.draft.prompt(parts, at)

    def _call(self, call_id: str, name: str, given: dict[str, Any], at: int | None) -> None:
        draft, model = self.draft, self.model
        if name == "apply_patch" and isinstance(given.get("input"), str):
            draft.call(call_id, "apply_patch", {"patch": given["input"]}, model=model, at=at)
            return
        if name in SHELLS:
            self.shells.add(call_id)
            command = given.get("cmd") or given.get("command")
            if isinstance(command, list):
                command = shlex.join(str(c) for c in command)
            if isinstance(command, str) and command:
                patch = HEREDOC.match(command)
                if patch is not None:
                    draft.call(call_id, "apply_patch", {"patch": patch.group(2) + "\n"}, model=model, at=at)
                else:
                    workdir = given.get("workdir")
                    elsewhere = {"workdir": workdir} if isinstance(workdir, str) and workdir != self.cwd else {}
                    draft.call(call_id, "bash", {"command": command, **elsewhere}, model=model, at=at)
                return
        if name == "view_image" and isinstance(given.get("path"), str):
            draft.call(call_id, "read", {"path": patches.shown_path(given["path"], self.cwd)}, model=model, at=at)
            return
        draft.call(call_id, name, given, foreign=name, model=model, at=at)

    def _output(self, item: dict[str, Any], at: int | None) -> None:
        output = item.get("output")
        images: list[dict[str, Any]] = []
        call_id = item["call_id"]
        told = self.outcomes.pop(call_id, None)
        if isinstance(output, dict):  # older rollouts: {"content": ..., "success": ...}
            told, output = output.get("success") is not False, output.get("content")
        elif isinstance(output, str) and call_id in self.shells:
            output, exited = codex_exits.shell_output(output)
            told = exited if told is None else told
        if isinstance(output, list):
            texts = []
            for n, part in enumerate(output):
                if part.get("type") == "input_image":
                    found = _data_image(part.get("image_url") or "", f"image-{n + 1}")
                    if found is not None:
                        images.append(found)
                else:
                    texts.append(part.get("text") or "")
            output = "\n".join(texts)
        self.draft.result(call_id, str(output or ""), ok=told is not False, images=images, at=at)

    def completed(self, item: Any) -> None:
        """What Codex's UI event says of a finished call: its exit code or status (``codex_exits``)."""
        found = codex_exits.settled(item)
        if found is not None:
            self.outcomes[found[0]] = found[1]

    def usage(self, usage: dict[str, Any]) -> None:
        if not usage:
            return
        self.draft.usage(
            usage_of(
                usage,
                input_tokens="input_tokens",
                output_tokens="output_tokens",
                reasoning_tokens="reasoning_output_tokens",
                cache_read_tokens="cached_input_tokens",
                cache_write_tokens="cache_write_input_tokens",
            )
        )

    def compacted(self, payload: dict[str, Any], at: int | None) -> None:
        message = str(payload.get("message") or "")
        self.draft.drop_step_if_only(message)
        self.draft.compaction(message, manual=False, at=at)


def first_prompt(line: dict[str, Any]) -> str | None:
    """The user's words if ``line`` is a prompt (for listing a rollout by its first one)."""
    item = line.get("payload") or {}
    if line.get("type") != "response_item" or item.get("type") != "message" or item.get("role") != "user":
        return None
    texts = [c.get("text") or "" for c in item.get("content") or [] if c.get("type") in ("input_text", "text")]
    words = "\n".join(t for t in texts if t and not t.lstrip().startswith(CONTEXT_MARKS))
    return words or None


def _data_image(url: str, name: str) -> dict[str, Any] | None:
    """A ``data:image/png;base64,…`` URL as a stored image (None for any other URL)."""
    head, _, data = url.partition(",")
    if not head.startswith("data:") or not head.endswith(";base64"):
        return None
    mime = head[5:-7] or "image/png"
    return image(mime, data, f"{name}.{mime.split('/')[-1]}")
