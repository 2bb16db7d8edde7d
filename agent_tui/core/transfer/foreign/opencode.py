"""opencode's sessions as ``opencode export`` writes them (``{"info", "messages": [{"info", "parts"}]}``), opencode 1.x.

opencode 1.x keeps its sessions in SQLite (``opencode_db`` reads one out of it
in this same shape); ``opencode export <id>`` writes the same JSON, which is
what a file given to ``import --from opencode`` is. ``info`` is the session:
its ``id``, ``directory``, ``title`` and the writing ``version``. A message's
``info`` says its ``role``; an assistant's names ``modelID`` and, on the
compaction's reply, ``summary: true``. What a message holds is its parts:
``text`` (``synthetic`` when opencode wrote it, not the user), ``reasoning``,
``tool`` (the call with its ``state``: input, then output or error), ``file``
(an attachment), ``step-start`` / ``step-finish`` (one model response, its
token usage on the finish), ``compaction`` (a user message asking for one),
and bookkeeping (``patch`` and ``snapshot`` name file snapshots) passed over.

Tools: ``bash`` is our ``bash``, ``read`` our ``read``; ``edit`` (its
metadata's unified diff when there is one, else old text → new text),
``write`` (a new file's whole text) and ``apply_patch`` / ``patch`` (the same
``*** Begin Patch`` text) are our ``apply_patch``, shown as the diff. Every
other tool is kept under its own name (a foreign tool block).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.transfer.foreign import patches
from agent_tui.core.transfer.foreign.draft import (
    Draft,
    Imported,
    UnreadableSession,
    image,
    must_fit,
    refuse_unknown_version,
)
from agent_tui.vocab.usage import Usage

AGENT, LABEL = "opencode", "opencode"
MAJORS = ("1",)  # the session format these readers know
BOOKKEEPING = {"patch", "snapshot", "step-start"}
DEFAULT_TITLE = re.compile(r"^(New|Child) session - \d{4}-\d\d-\d\dT")


def read(text: str, path: str) -> Imported:
    try:
        doc = json.loads(text)
    except ValueError:
        raise UnreadableSession(f"{path}: not JSON; not an opencode session export; nothing was imported") from None
    info = doc.get("info") if isinstance(doc, dict) else None
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(info, dict) or not isinstance(messages, list):
        raise UnreadableSession(
            f"{path}: no session info and messages; not an opencode session (as `opencode export` writes it)"
        )
    version = str(info.get("version") or "")
    refuse_unknown_version(path, LABEL, version, MAJORS)
    session_id, cwd = info.get("id"), info.get("directory")
    if not isinstance(session_id, str) or not isinstance(cwd, str):
        raise UnreadableSession(f"{path}: the session info names no id and directory; not an opencode session")
    reader = _Reader(Draft(AGENT, LABEL), cwd)
    reverted = (info.get("revert") or {}).get("messageID")
    for number, message in enumerate(messages, 1):
        with must_fit(path, f"message {number}", "the opencode session format"):
            if reverted is not None and message["info"]["id"] == reverted:
                reader.draft.note(f"{len(messages) - number + 1} messages opencode had reverted were left out")
                break
            reader.message(message["info"], message.get("parts") or [])
    reader.finish()
    title = info.get("title")
    title = title if isinstance(title, str) and title and not DEFAULT_TITLE.match(title) else None
    return reader.draft.finish(source_id=session_id, location=cwd, path=path, version=version, title=title)


def first_prompt(doc: dict[str, Any]) -> str | None:
    """The session's title, or its first words from the user (for listing an export file)."""
    title = (doc.get("info") or {}).get("title")
    if isinstance(title, str) and title and not DEFAULT_TITLE.match(title):
        return title
    for message in doc.get("messages") or []:
        if (message.get("info") or {}).get("role") == "user":
            words = "\n".join(p.get("text") or "" for p in message.get("parts") or [] if _typed_by_user(p))
            if words.strip():
                return words
    return None


def _typed_by_user(part: dict[str, Any]) -> bool:
    return part.get("type") == "text" and not part.get("synthetic") and not part.get("ignored")


class _Reader:
    def __init__(self, draft: Draft, cwd: str) -> None:
        self.draft, self.cwd = draft, cwd
        self.compacting: dict[str, Any] | None = None  # the compaction part waiting for its summary
        self.synthetic = 0
        self.skipped: Counter[str] = Counter()

    def message(self, info: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        at = _ms((info.get("time") or {}).get("created"))
        match info["role"]:
            case "user":
                self.user(parts, at)
            case "assistant" if info.get("summary") is True:
                self.summary(info, parts, at)
            case "assistant":
                self.assistant(info, parts, at)
            case other:
                self.draft.note(f"an opencode message of role {other!r} was left out", at)

    # -- user messages: prompts, attachments, compaction requests ----------------------------------
    def user(self, parts: list[dict[str, Any]], at: int | None) -> None:
        prompt: list[ev.PromptPart] = []
        for part in parts:
            match part.get("type"):
                case "text" if part.get("synthetic") or part.get("ignored"):
                    self.synthetic += 1
                case "text" if part.get("text"):
                    prompt.append(ev.TextPart(text=part["text"]))
                case "file":
                    found = _data_image(part, len(prompt))
                    if found is None:
                        self.draft.note(
                            f"an attached file ({part.get('filename') or part.get('mime')}) was left out", at
                        )
                    else:
                        prompt.append(
                            ev.ImagePart(path=found["path"], mime=found["mime"], data=found["data"], size=found["size"])
                        )
                case "compaction":
                    self.compacting = part
                case "text":
                    pass
                case other:
                    self.skipped[f"user {other}"] += 1
        if prompt:
            self.draft.prompt(prompt, at)

    def summary(self, info: dict[str, Any], parts: list[dict[str, Any]], at: int | None) -> None:
        """The compaction's reply: its text is the summary the divider holds."""
        text = "\n".join(p.get("text") or "" for p in parts if p.get("type") == "text")
        manual = self.compacting is not None and self.compacting.get("auto") is False
        self.draft.compaction(text, manual=manual, at=at)
        self.compacting = None
        if info.get("error"):
            self.draft.note(f"the compaction ended with an error: {_error_text(info['error'])}", at)

    # -- assistant messages: one or more model responses ------------------------------------------
    def assistant(self, info: dict[str, Any], parts: list[dict[str, Any]], at: int | None) -> None:
        model = info.get("modelID") if isinstance(info.get("modelID"), str) else None
        new = True  # a message is a new step; so is each step-start within it
        for part in parts:
            when = _ms((part.get("time") or {}).get("start")) or at
            match part.get("type"):
                case "step-start":
                    new = True
                    continue
                case "text" | "reasoning" if not part.get("text"):
                    continue
                case "text":
                    self.draft.text(part["text"], model=model, at=when, new_step=new)
                case "reasoning":
                    self.draft.reasoning(part["text"], model=model, at=when, new_step=new)
                case "tool":
                    self._tool(part, model, new, at)
                case "step-finish":
                    self.draft.usage(_usage(part.get("tokens") or {}))
                    continue
                case kind if kind in BOOKKEEPING:
                    continue
                case other:
                    self.skipped[f"assistant {other}"] += 1
                    continue
            new = False
        if info.get("error"):
            self.draft.note(f"the response ended with an error: {_error_text(info['error'])}", at)

    def _tool(self, part: dict[str, Any], model: str | None, new: bool, at: int | None) -> None:
        name, call_id, state = part["tool"], part["callID"], part.get("state") or {}
        times = state.get("time") or {}
        given: dict[str, Any] = state["input"] if isinstance(state.get("input"), dict) else {}
        mapped = self._mapped(name, given, state.get("metadata") or {})
        started = _ms(times.get("start")) or at
        if mapped is None:
            self.draft.call(call_id, name, given, foreign=name, model=model, at=started, new_step=new)
        else:
            self.draft.call(call_id, mapped[0], mapped[1], model=model, at=started, new_step=new)
        ended = _ms(times.get("end")) or started
        match state.get("status"):
            case "completed":
                read = given.get("filePath")  # a read file's image is named as the file
                named = patches.shown_path(read, self.cwd) if isinstance(read, str) else None
                images = [
                    found
                    for n, attached in enumerate(state.get("attachments") or [])
                    if (found := _data_image(attached, n, named)) is not None
                ]
                self.draft.result(call_id, str(state.get("output") or ""), images=images, at=ended)
            case "error":
                self.draft.result(call_id, str(state.get("error") or "failed"), ok=False, at=ended)
            case _:
                pass  # pending or running when the session stopped: settled as interrupted

    def _mapped(self, name: str, given: dict[str, Any], meta: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        match name, given:
            case "bash", {"command": str(command)}:
                extra: dict[str, Any] = {}
                if isinstance(given.get("description"), str) and given["description"]:
                    extra["description"] = given["description"]
                if isinstance(given.get("workdir"), str) and given["workdir"] != self.cwd:
                    extra["workdir"] = given["workdir"]
                if isinstance(given.get("timeout"), int) and given["timeout"] > 0:
                    extra["timeout_ms"] = given["timeout"]
                return "bash", {"command": command, **extra}
            case "read", {"filePath": str(path)}:
                extra = {key: given[key] for key in ("offset", "limit") if isinstance(given.get(key), int)}
                return "read", {"path": patches.shown_path(path, self.cwd), **extra}
            case "edit", {"filePath": str(path), "oldString": str(old), "newString": str(new)}:
                shown = patches.shown_path(path, self.cwd)
                hunks = patches.unified_hunks(meta["diff"]) if isinstance(meta.get("diff"), str) else []
                if not hunks:  # not applied, or no diff kept: the change as asked
                    hunks = [[*("-" + line for line in old.splitlines()), *("+" + line for line in new.splitlines())]]
                return "apply_patch", {"patch": patches.update(shown, hunks)}
            case "write", {"filePath": str(path), "content": str(content)}:
                return "apply_patch", {"patch": patches.add(patches.shown_path(path, self.cwd), content)}
            case "apply_patch" | "patch", {"patchText": str(patch)} if patch.lstrip().startswith(patches.BEGIN):
                return "apply_patch", {"patch": patch if patch.endswith("\n") else patch + "\n"}
        return None

    def finish(self) -> None:
        if self.compacting is not None:
            self.draft.note("a compaction opencode had begun but not finished was left out")
        if self.synthetic:
            self.draft.note(
                f"text opencode wrote into user messages itself ({self.synthetic} parts, such as its prompt to"
                " continue after a compaction or a file's content it read in) was left out"
            )
        if self.skipped:
            kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.skipped.items()))
            self.draft.note(f"opencode parts this reader does not map were left out: {kinds}")


def _usage(tokens: dict[str, Any]) -> Usage:
    """opencode's step tokens as ours: its ``input`` leaves out the cache and its ``output`` the
    reasoning, ours hold them."""
    cache = tokens.get("cache") or {}
    read, write = cache.get("read") or 0, cache.get("write") or 0
    reasoning = tokens.get("reasoning") or 0
    return Usage(
        input_tokens=(tokens.get("input") or 0) + read + write,
        output_tokens=(tokens.get("output") or 0) + reasoning,
        reasoning_tokens=reasoning,
        cache_read_tokens=read,
        cache_write_tokens=write,
    )


def _ms(value: Any) -> int | None:
    """opencode's times are epoch milliseconds."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        message = (error.get("data") or {}).get("message")
        return f"{error.get('name') or 'error'}: {message}" if message else str(error.get("name") or error)
    return str(error)


def _data_image(part: dict[str, Any], n: int, name: str | None = None) -> dict[str, Any] | None:
    """A file part whose ``url`` is an inline image (``data:image/png;base64,…``) as a stored image."""
    url, mime = str(part.get("url") or ""), str(part.get("mime") or "")
    head, _, data = url.partition(",")
    if not mime.startswith("image/") or not head.startswith("data:") or not head.endswith(";base64"):
        return None
    return image(mime, data, str(part.get("filename") or name or f"image-{n + 1}.{mime.split('/')[-1]}"))
