"""Claude Code's session transcripts (``~/.claude/projects/<slug>/<session>.jsonl``), versions 1.x and 2.x.

One JSON record a line. ``user`` and ``assistant`` records hold an Anthropic
Messages ``message``; an assistant response is written as one record per
content block, all with the same ``message.id``, so one id is one step. Tool
results come back in ``user`` records (``tool_result`` blocks, the structured
result in ``toolUseResult``). ``/compact`` writes a ``system`` record of
subtype ``compact_boundary`` and then the summary as a ``user`` record with
``isCompactSummary``. Every conversation record carries the writing
``version``, the ``cwd`` and the ``sessionId``; bookkeeping records
(``queue-operation``, ``last-prompt``, ``mode``, ``file-history-snapshot``)
carry no conversation and are passed over; ``summary`` and ``custom-title``
give the title.

The records form a tree (``parentUuid``; across a compaction
``logicalParentUuid``): an edited or rewound prompt starts a new branch and
leaves the old one in the file. The session is the branch that ends at the
last record: walked back from it, read in written order; records of other
branches are left out with one note, as are the sidechain records older
versions wrote into the session's file. A subagent's own transcript, kept
beside the file (``<session>/subagents/agent-*.jsonl``), becomes a child
session of its ``Agent`` call (``claude_subagents``); such a file given alone is
refused, naming its session.

Tools: ``Bash`` is our ``bash``, ``Read`` our ``read``, ``Edit`` (old text →
new text) and ``Write`` (a new file's whole text) our ``apply_patch``, shown as
the diff; when the result's ``structuredPatch`` tells the change with its
context lines (``Edit``, ``MultiEdit``, a ``Write`` over a file) that diff is
the patch. ``TodoWrite`` is our ``todo`` (its plan shows in the plan panel when
it succeeded). ``Agent`` (``Task`` before 2.1) is our ``task``, its result the
subagent's answer. Every other tool is kept under its own name (a foreign tool block).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.transfer.foreign import claude_subagents, patches
from agent_tui.core.transfer.foreign.draft import (
    Draft,
    Imported,
    UnreadableSession,
    add_subagent,
    image,
    json_lines,
    must_fit,
    refuse_unknown_version,
    time_ms,
    usage_of,
)

AGENT, LABEL = "claude", "Claude Code"
MAJORS = ("1", "2")  # the transcript format these readers know
BOOKKEEPING = {
    "queue-operation",
    "last-prompt",
    "mode",
    "file-history-snapshot",
    "summary",
    "custom-title",
    "agent-name",
}
COMMAND_MARKS = ("<command-name>", "<local-command-stdout>", "<local-command-stderr>", "<command-message>")


def read(text: str, path: str) -> Imported:
    records = json_lines(text, path)
    version, session_id, cwd = _origin(records, path)
    talk = [r for r in records if r.get("type") in ("user", "assistant")]
    if talk and all(r.get("isSidechain") for r in talk):
        raise UnreadableSession(
            f"{path}: a subagent's transcript, which Claude Code keeps beside its session;"
            f" import the session ({session_id}), which brings it along"
        )
    reader = _walk(records, path, _Reader(Draft(AGENT, LABEL), cwd))
    transcripts = claude_subagents.beside(path)
    reader.subagents(transcripts, version, session_id)
    for transcript in transcripts:
        reader.draft.note(f"a subagent's transcript ({transcript.path.name}) no Agent call here started was left out")
    return reader.draft.finish(source_id=session_id, location=cwd, path=path, version=version, title=reader.title)


def _walk(records: list[dict[str, Any]], path: str, reader: _Reader) -> _Reader:
    """Read the records of the branch that ends at the last one into ``reader``."""
    branch = _last_branch(records)
    for number, record in enumerate(records, 1):
        if isinstance(record.get("uuid"), str) and record["uuid"] not in branch:
            continue
        with must_fit(path, f"line {number} ({record.get('type')})", "the Claude Code format"):
            reader.record(record, number)
    reader.flush_skipped()
    off = sum(1 for r in records if isinstance(r.get("uuid"), str) and r["uuid"] not in branch)
    if off:
        reader.draft.note(f"{off} records of other branches (an edited or rewound part, or a subagent's) were left out")
    return reader


def first_prompt(record: dict[str, Any]) -> str | None:
    """The user's words if ``record`` is a prompt (for listing a session by its first one)."""
    if record.get("type") != "user" or record.get("isMeta") or record.get("isCompactSummary"):
        return None
    content = (record.get("message") or {}).get("content")
    if isinstance(content, list):
        content = "\n".join(b.get("text") or "" for b in content if isinstance(b, dict) and b.get("type") == "text")
    if not isinstance(content, str) or not content.strip() or content.lstrip().startswith(COMMAND_MARKS):
        return None
    return content


def _origin(records: list[dict[str, Any]], path: str) -> tuple[str, str, str]:
    """The writing version (refused unless known), the session id and the directory, from the first
    conversation record."""
    first = next((r for r in records if r.get("type") in ("user", "assistant", "system")), None)
    if first is None:
        raise UnreadableSession(f"{path}: no user or assistant record; not a Claude Code session")
    version = str(first.get("version") or "")
    refuse_unknown_version(path, LABEL, version, MAJORS)
    session_id, cwd = first.get("sessionId"), first.get("cwd")
    if not isinstance(session_id, str) or not isinstance(cwd, str):
        raise UnreadableSession(f"{path}: the first record names no sessionId and cwd; not a Claude Code session")
    return version, session_id, cwd


def _last_branch(records: list[dict[str, Any]]) -> set[str]:
    """The uuids from the last record back to the root of its branch."""
    by_id = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    leaf = next((r for r in reversed(records) if isinstance(r.get("uuid"), str)), None)
    branch: set[str] = set()
    while leaf is not None and leaf["uuid"] not in branch:
        branch.add(leaf["uuid"])
        parent = leaf.get("parentUuid") or leaf.get("logicalParentUuid")
        leaf = by_id.get(parent) if isinstance(parent, str) else None
    return branch


class _Reader:
    def __init__(self, draft: Draft, cwd: str, *, sidechain: bool = False) -> None:
        self.draft, self.cwd = draft, cwd
        self.sidechain = sidechain  # reading a subagent's own transcript: its records are all sidechain
        self.tasks: dict[str, dict[str, Any]] = {}  # Agent call id -> its input as our task's
        self.agent_ids: dict[str, str] = {}  # Claude Code's agent id -> the Agent call that started it
        self.message_id: str | None = None  # the Anthropic message id of the open step
        self.tools: dict[str, str] = {}  # call id -> the source's tool name
        self.compacting: dict[str, Any] | None = None  # the compact_boundary waiting for its summary
        self.skipped: Counter[str] = Counter()
        self.title: str | None = None
        self.plans: dict[str, list[dict[str, str]]] = {}  # TodoWrite call id -> its items, as our plan

    def record(self, record: dict[str, Any], number: int) -> None:
        kind = record.get("type")
        match kind:
            case "summary" | "custom-title" | "ai-title":
                found = record.get("summary") or record.get("customTitle") or record.get("aiTitle")
                self.title = found if isinstance(found, str) and found else self.title
            case _ if kind in BOOKKEEPING:
                pass
            case "user":
                self.user(record)
            case "assistant":
                self.assistant(record)
            case "system":
                self.system(record)
            case "attachment":
                self.skipped[str((record.get("attachment") or {}).get("type") or "attachment")] += 1
            case _:
                self.draft.note(f"a {kind!r} record (line {number}) this reader does not know was left out")

    def flush_skipped(self) -> None:
        if self.skipped:
            kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.skipped.items()))
            self.draft.note(f"context attachments Claude Code added for its model were left out: {kinds}")
            self.skipped.clear()

    # -- user records: prompts, tool results, compaction summaries ----------------------------
    def user(self, record: dict[str, Any]) -> None:
        at = time_ms(record.get("timestamp"))
        if record.get("isSidechain") and not self.sidechain:
            self.draft.note("a subagent's (sidechain) message was left out", at)
            return
        content = record["message"]["content"]
        if record.get("isCompactSummary"):
            summary = content if isinstance(content, str) else _text_of(content)
            trigger = ((self.compacting or {}).get("compactMetadata") or {}).get("trigger")
            self.draft.compaction(summary, manual=trigger != "auto", at=at)
            self.compacting = None
            return
        if record.get("isMeta"):
            return  # Claude Code's own caveats for its model, never the user's words
        if isinstance(content, str):
            if content.lstrip().startswith(COMMAND_MARKS):
                self._command(content, at)
            else:
                self.draft.prompt(ev.text_prompt(content), at)
            return
        parts: list[ev.PromptPart] = []
        for block in content:
            match block.get("type"):
                case "tool_result":
                    self._result(block, record, at)
                case "text" if block.get("text"):
                    parts.append(ev.TextPart(text=block["text"]))
                case "image":
                    part = self._image_part(block, len(parts))
                    if part is not None:
                        parts.append(part)
                case other:
                    self.draft.note(f"a user {other!r} block was left out", at)
        if parts:
            self.draft.prompt(parts, at)

    def _command(self, content: str, at: int | None) -> None:
        if "<command-name>/compact</command-name>" in content or "Compacted" in content:
            return  # the compaction is its divider
        self.draft.note("a Claude Code slash command and its output: " + " ".join(content.split())[:300], at)

    def _image_part(self, block: dict[str, Any], n: int) -> ev.ImagePart | None:
        source = block.get("source") or {}
        if source.get("type") != "base64":
            self.draft.note(f"an image given as {source.get('type')!r}, not inline, was left out")
            return None
        mime = source.get("media_type") or "image/png"
        found = image(mime, source.get("data") or "", f"image-{n + 1}.{mime.split('/')[-1]}")
        if found is None:
            self.draft.note("an image whose data is not base64 was left out")
            return None
        return ev.ImagePart(path=found["path"], mime=mime, data=found["data"], size=found["size"])

    def _result(self, block: dict[str, Any], record: dict[str, Any], at: int | None) -> None:
        content = block.get("content")
        text, images = "", []
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            texts = []
            for item in content:
                match item.get("type"):
                    case "text":
                        texts.append(item.get("text") or "")
                    case "image":
                        source = item.get("source") or {}
                        found = image(source.get("media_type") or "image/png", source.get("data") or "", "")
                        if found is not None:
                            images.append(found)
            text = "\n".join(texts)
        call_id = block["tool_use_id"]
        structured = record.get("toolUseResult")
        if self.tools.get(call_id) in ("Edit", "MultiEdit", "Write") and isinstance(structured, dict):
            hunks = [h.get("lines") or [] for h in structured.get("structuredPatch") or []]
            where = structured.get("filePath")
            if hunks and isinstance(where, str):  # the edit with its context lines, as it landed
                patch = patches.update(patches.shown_path(where, self.cwd), hunks)
                self.draft.remap(call_id, "apply_patch", {"patch": patch})
        if call_id in self.tasks and isinstance(structured, dict):
            if isinstance(structured.get("agentId"), str):
                self.agent_ids[structured["agentId"]] = call_id
            text = claude_subagents.answer(structured) or text  # not Claude Code's note of how to reach it
        plan = self.plans.pop(call_id, None)  # a todo call's plan is what the plan panel shows
        data = {"plan": plan} if plan is not None else None
        self.draft.result(call_id, text, ok=not block.get("is_error"), images=images, data=data, at=at)

    # -- assistant records: one content block each ----------------------------------------------
    def assistant(self, record: dict[str, Any]) -> None:
        at = time_ms(record.get("timestamp"))
        if record.get("isSidechain") and not self.sidechain:
            self.draft.note("a subagent's (sidechain) message was left out", at)
            return
        message = record["message"]
        model = message.get("model")
        new = message.get("id") != self.message_id
        self.message_id = message.get("id")
        for block in message.get("content") or []:
            match block.get("type"):
                case "text":
                    self.draft.text(block.get("text") or "", model=model, at=at, new_step=new)
                case "thinking":
                    self.draft.reasoning(block.get("thinking") or "", model=model, at=at, new_step=new)
                case "redacted_thinking":
                    self.draft.note("a redacted (encrypted) thinking block was left out", at)
                case "tool_use":
                    self._call(block, record, model, at, new)
                case other:
                    self.draft.note(f"an assistant {other!r} block was left out", at)
            new = False
        usage = message.get("usage")
        if isinstance(usage, dict):
            self.draft.usage(
                usage_of(
                    usage,
                    input_tokens="input_tokens",
                    output_tokens="output_tokens",
                    cache_read_tokens="cache_read_input_tokens",
                    cache_write_tokens="cache_creation_input_tokens",
                ),
                seal=False,  # the next block of the same response is another record
            )

    def _call(
        self, block: dict[str, Any], record: dict[str, Any], model: str | None, at: int | None, new: bool
    ) -> None:
        name, call_input, call_id = block["name"], block.get("input") or {}, block["id"]
        self.tools[call_id] = name
        mapped = self._mapped(name, call_input)
        if mapped is not None and mapped[0] == "todo":
            self.plans[call_id] = mapped[1]["items"]
        if mapped is not None and mapped[0] == "task":
            self.tasks[call_id] = mapped[1]
            left = sorted(set(call_input) - set(claude_subagents.KEPT))
            if left:
                self.draft.note(f"the {name} call's options {', '.join(left)} were left out", at)
        if mapped is None:
            self.draft.call(call_id, name, call_input, foreign=name, model=model, at=at, new_step=new)
        else:
            self.draft.call(call_id, mapped[0], mapped[1], model=model, at=at, new_step=new)

    def _mapped(self, name: str, given: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        match name, given:
            case "Bash", {"command": str(command)}:
                return "bash", {
                    "command": command,
                    **({"description": given["description"]} if given.get("description") else {}),
                }
            case "Read", {"file_path": str(path)}:
                extra = {key: given[key] for key in ("offset", "limit") if isinstance(given.get(key), int)}
                return "read", {"path": patches.shown_path(path, self.cwd), **extra}
            case "Edit", {"file_path": str(path), "old_string": str(old), "new_string": str(new)}:
                hunks = [[*("-" + line for line in old.splitlines()), *("+" + line for line in new.splitlines())]]
                return "apply_patch", {"patch": patches.update(patches.shown_path(path, self.cwd), hunks)}
            case "Write", {"file_path": str(path), "content": str(content)}:
                return "apply_patch", {"patch": patches.add(patches.shown_path(path, self.cwd), content)}
            case "TodoWrite", {"todos": list(todos)} if all(_todo(t) for t in todos):
                return "todo", {"items": [_todo(t) for t in todos]}
            case tool, {"prompt": str()} if tool in claude_subagents.TOOLS:
                task = claude_subagents.task_input(given)
                return ("task", task) if task is not None else None
        return None

    # -- subagents' transcripts --------------------------------------------------------------------
    def subagents(self, transcripts: list[claude_subagents.Transcript], version: str, source: str) -> None:
        """Each transcript an ``Agent`` call of this conversation started, read as a child session of
        the call (and the transcripts its own calls started, in turn); the rest stay in ``transcripts``."""
        for transcript in list(transcripts):
            call_id = self.agent_ids.get(transcript.agent_id) or transcript.call_id
            if call_id not in self.tasks or transcript not in transcripts:
                continue
            transcripts.remove(transcript)
            path, task = str(transcript.path), self.tasks[call_id]
            child = _walk(
                json_lines(transcript.text, path), path, _Reader(Draft(AGENT, LABEL), self.cwd, sidechain=True)
            )
            child.subagents(transcripts, version, source)
            built = child.draft.finish(
                source_id=f"{source}/agent-{transcript.agent_id}",
                location=self.cwd,
                path=path,
                version=version,
                title=task["description"],
            )
            add_subagent(self.draft, built, call_id, task["agent"])

    # -- system records ----------------------------------------------------------------------------
    def system(self, record: dict[str, Any]) -> None:
        match record.get("subtype"):
            case "compact_boundary":
                self.compacting = record
            case "api_error" | "informational" | "local_command" | "turn_duration" | "stop_hook_summary":
                pass  # Claude Code's status lines: no conversation
            case other:
                self.draft.note(f"a Claude Code system record ({other}) was left out", time_ms(record.get("timestamp")))


def _todo(item: Any) -> dict[str, str] | None:
    """A TodoWrite item as one of our plan's (``completed`` is ``done``); None when it is not one."""
    if not isinstance(item, dict) or not isinstance(item.get("content"), str) or not item["content"].strip():
        return None
    status = {"pending": "pending", "in_progress": "in_progress", "completed": "done"}.get(str(item.get("status")))
    return {"content": item["content"].strip()[:500], "status": status} if status else None


def _text_of(content: list[dict[str, Any]]) -> str:
    return "\n".join(block.get("text") or "" for block in content if block.get("type") == "text")
