"""Gemini CLI's session files (``~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl``), the JSONL layout.

``gemini_log`` replays the file into its messages (each its last record) and
compactions; this turns them into a draft. A ``user`` message is a prompt
(text, inline images) or, holding ``functionResponse`` parts, tool results; a
``gemini`` message is one step: its ``thoughts`` (reasoning), text, and
``toolCalls``, each with its ``args``, ``result`` parts, ``status`` and, for
edits, ``resultDisplay.fileDiff``; its ``tokens`` are the step's usage (input
includes the cached tokens, output the thoughts', as LiteLLM counts them).
``info`` / ``error`` / ``warning`` messages are Gemini CLI's own notices, kept
as notes. The directory is the one the session context names (checked against
the file's project hash). The file names no CLI version: its layout is the
version, and the older single-object ``session-*.json`` is refused by name.

Tools: ``run_shell_command`` is our ``bash``, ``read_file`` our ``read``,
``replace`` and ``write_file`` our ``apply_patch`` (the diff the tool recorded
when there is one, else the old → new text or the whole new file); every other
tool is kept under its own name.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.transfer.foreign import patches
from agent_tui.core.transfer.foreign.draft import Draft, Imported, image, must_fit, time_ms
from agent_tui.core.transfer.foreign.gemini_log import CONTEXT_MARK, Compaction, SessionLog, records, texts
from agent_tui.vocab.usage import Usage

AGENT, LABEL = "gemini", "Gemini CLI"
FORM = "the Gemini CLI session format"
LAYOUT = "jsonl"  # the session layout this build reads (Imported.version: the file names no CLI version)


def read(text: str, path: str) -> Imported:
    rows = records(text, path)
    meta = rows[0]
    session_id = meta["sessionId"]
    log = SessionLog(path)
    for number, record in enumerate(rows, 1):
        with must_fit(path, f"line {number}", FORM):
            log.record(record, number)
    draft = Draft(AGENT, LABEL)
    emit = _Emitter(draft, log.location(str(meta["projectHash"])), log.workspace())
    for entry in log.order:
        with must_fit(path, "a message", FORM):
            emit.entry(log.messages[entry] if isinstance(entry, str) else entry)
    for note in log.notes:
        draft.note(note)
    if log.contexts:
        draft.note(
            "Gemini CLI's own session context (date, system, directory listing) was left out; this project's instructions apply"
        )
    if emit.location is None:
        draft.note("the file does not name the directory the session ran in; it went to the one imported from")
    return draft.finish(source_id=session_id, location=emit.location or "", path=path, version=LAYOUT, title=log.title)


class _Emitter:
    """The replayed messages told to the draft."""

    def __init__(self, draft: Draft, location: str | None, workspace: list[str]) -> None:
        self.draft, self.location = draft, location
        self.roots = [root for root in dict.fromkeys([location or "", *workspace]) if root]
        self.settled: set[str] = set()

    def _shown(self, path: str) -> str:
        """``path`` relative to the session's directory, or to the workspace directory it lies in (the
        session's, when it was moved with --project or its folder), else as given."""
        for root in self.roots:
            relative = patches.shown_path(path, root)
            if relative != path:
                return relative
        return path

    def entry(self, entry: dict[str, Any] | Compaction) -> None:
        if isinstance(entry, Compaction):
            self.draft.compaction(entry.summary, manual=False, at=None)
            return
        at = time_ms(entry.get("timestamp"))
        match entry["type"]:
            case "user":
                self._user(entry, at)
            case "gemini":
                self._gemini(entry, at)
            case kind:
                words = " ".join("\n".join(texts(entry.get("content"))).split())[:300]
                self.draft.note(f"a Gemini CLI {kind} message: {words}", at)

    def _user(self, message: dict[str, Any], at: int | None) -> None:
        content = message.get("content")
        listed = content if isinstance(content, list) else [content or ""]
        parts: list[dict[str, Any]] = [p if isinstance(p, dict) else {"text": str(p)} for p in listed]
        responses = [p["functionResponse"] for p in parts if isinstance(p.get("functionResponse"), dict)]
        if responses:  # tool results (and the images they returned), already settled from the call's record
            images = [found for p in parts if (found := _inline_image(p)) is not None]
            for response in responses:
                call_id = str(response.get("id") or response.get("name"))
                if call_id not in self.settled:
                    self.settled.add(call_id)
                    text, ok = _response_text(response)
                    self.draft.result(call_id, text, ok=ok, images=images, at=at)
                    images = []  # the images go with the first result
            return
        prompt: list[ev.PromptPart] = []
        for part in parts:
            if isinstance(part.get("text"), str):
                if part["text"] and not part.get("thought"):
                    prompt.append(ev.TextPart(text=part["text"]))
            elif (found := _inline_image(part)) is not None:
                prompt.append(
                    ev.ImagePart(path=found["path"], mime=found["mime"], data=found["data"], size=found["size"])
                )
            else:
                self.draft.note(f"a user {', '.join(sorted(part)) or 'empty'} part was left out", at)
        if prompt:
            self.draft.prompt(prompt, at)

    def _gemini(self, message: dict[str, Any], at: int | None) -> None:
        draft, model, new = self.draft, message.get("model"), True
        content = message.get("content")
        reasoning = [
            "\n\n".join(x for x in (str(t.get("subject") or "").strip(), str(t.get("description") or "")) if x)
            for t in message.get("thoughts") or []
        ] + texts(content, thoughts=True)
        for text in reasoning:
            if text.strip():
                draft.reasoning(text, model=model, at=at, new_step=new)
                new = False
        text = "".join(texts(content))
        if text:
            draft.text(text, model=model, at=at, new_step=new)
            new = False
        calls = list(message.get("toolCalls") or [])
        recorded = {c.get("id") for c in calls}
        for part in content if isinstance(content, list) else []:  # a rewrite's shape: calls as parts
            call = part.get("functionCall") if isinstance(part, dict) else None
            if isinstance(call, dict) and call.get("id") not in recorded:
                calls.append(
                    {"id": call.get("id") or call.get("name"), "name": call.get("name"), "args": call.get("args")}
                )
        for call in calls:
            self._call(call, model, at, new)
            new = False
        tokens = message.get("tokens")
        if isinstance(tokens, dict):
            draft.usage(
                Usage(
                    input_tokens=tokens.get("input") or 0,
                    output_tokens=(tokens.get("output") or 0) + (tokens.get("thoughts") or 0),
                    reasoning_tokens=tokens.get("thoughts") or 0,
                    cache_read_tokens=tokens.get("cached") or 0,
                )
            )

    def _call(self, call: dict[str, Any], model: str | None, at: int | None, new: bool) -> None:
        call_id, name = str(call["id"]), str(call["name"])
        given = call.get("args")
        args: dict[str, Any] = given if isinstance(given, dict) else {}
        when = time_ms(call.get("timestamp")) or at
        mapped = self._mapped(name, args, call.get("resultDisplay"))
        if mapped is None:
            self.draft.call(call_id, name, args, foreign=name, model=model, at=at, new_step=new)
        else:
            self.draft.call(call_id, mapped[0], mapped[1], model=model, at=at, new_step=new)
        status, result = call.get("status"), call.get("result")
        if status is None or not isinstance(result, list) or call_id in self.settled:
            return  # no result yet: a later functionResponse settles it, or it stays open (interrupted)
        self.settled.add(call_id)
        responses = [
            p["functionResponse"] for p in result if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
        ]
        texts = [_response_text(r)[0] for r in responses]
        named = args.get("file_path")  # an image read_file returned is named by its file
        shown = self._shown(named) if isinstance(named, str) else None
        images = [found for p in result if (found := _inline_image(p, shown)) is not None]
        ok = status == "success" and all(_response_text(r)[1] for r in responses)
        self.draft.result(call_id, "\n".join(texts) or str(status), ok=ok, images=images, at=when)

    def _mapped(self, name: str, args: dict[str, Any], shown: Any) -> tuple[str, dict[str, Any]] | None:
        where = self.location or ""
        diff = shown if isinstance(shown, dict) and isinstance(shown.get("fileDiff"), str) else None
        match name, args:
            case "run_shell_command", {"command": str(command)}:
                extra = {"description": args["description"]} if args.get("description") else {}
                workdir = args.get("dir_path") or args.get("directory")
                if isinstance(workdir, str) and workdir and workdir != where:
                    extra["workdir"] = workdir
                return "bash", {"command": command, **extra}
            case "read_file", {"file_path": str(path)}:
                start, end = args.get("start_line"), args.get("end_line")
                extra = {"offset": start} if isinstance(start, int) and start >= 1 else {}
                if isinstance(end, int) and end >= (start if isinstance(start, int) else 1):
                    extra["limit"] = end - (start if isinstance(start, int) else 1) + 1
                return "read", {"path": self._shown(path), **extra}
            case (("replace" | "write_file"), {"file_path": str(path)}):
                shown_path = self._shown(path)
                if diff is not None and diff.get("isNewFile") and isinstance(diff.get("newContent"), str):
                    return "apply_patch", {"patch": patches.add(shown_path, diff["newContent"])}
                hunks = patches.unified_hunks(diff["fileDiff"]) if diff is not None else []
                if hunks:
                    return "apply_patch", {"patch": patches.update(shown_path, hunks)}
                if name == "write_file" and isinstance(args.get("content"), str):
                    return "apply_patch", {"patch": patches.add(shown_path, args["content"])}
                old, new = args.get("old_string"), args.get("new_string")
                if isinstance(old, str) and isinstance(new, str):
                    lines = [*("-" + line for line in old.splitlines()), *("+" + line for line in new.splitlines())]
                    return "apply_patch", {"patch": patches.update(shown_path, [lines])}
        return None


def _response_text(response: dict[str, Any]) -> tuple[str, bool]:
    """A function response's text and whether it reports success (``output``) or not (``error``)."""
    body = response.get("response")
    if isinstance(body, dict):
        if isinstance(body.get("error"), str):
            return body["error"], False
        if isinstance(body.get("output"), str):
            return body["output"], True
        return json.dumps(body, ensure_ascii=False), True
    return str(body or ""), True


def _inline_image(part: Any, name: str | None = None) -> dict[str, Any] | None:
    data = part.get("inlineData") if isinstance(part, dict) else None
    if not isinstance(data, dict) or not str(data.get("mimeType") or "").startswith("image/"):
        return None
    mime = str(data["mimeType"])
    return image(mime, str(data.get("data") or ""), name or f"image.{mime.split('/')[-1]}")


def first_prompt(record: dict[str, Any]) -> str | None:
    """The user's words if ``record`` is a prompt (for listing a session by its first one)."""
    if record.get("type") != "user" or not isinstance(record.get("id"), str):
        return None
    content = record.get("content")
    if isinstance(content, list) and any(isinstance(p, dict) and "functionResponse" in p for p in content):
        return None
    words = "\n".join(texts(content))
    return words if words.strip() and not words.lstrip().startswith(CONTEXT_MARK) else None
