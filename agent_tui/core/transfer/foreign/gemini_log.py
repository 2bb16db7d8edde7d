"""Gemini CLI's JSONL session file replayed as its own loader does, keeping what the loader drops.

The file is a log. The first line is the metadata (``sessionId``,
``projectHash`` — the sha256 of the directory — ``startTime``); a resumed run
writes it again. A message record (``id``, ``timestamp``, ``type`` ``user`` /
``gemini`` / ``info`` / ``error`` / ``warning``) is written again, whole, each
time it changes, so the last record of an id is the message. ``$rewindTo``
takes a message and everything after it back. ``$set`` updates the metadata
(``summary`` is the title); ``$set.messages`` rewrites the model's history in
its own, poorer shape (no tool calls' records, models or tokens): at the start
(with Gemini CLI's ``<session_context>`` message, which names the workspace
directory), on resume, and after a compression, whose first user message is
the ``<state_snapshot>`` summary, answered by one acknowledgement, then the
history it kept. The loader replaces its messages with a rewrite; here a
rewrite is never the conversation: one that starts from a new snapshot is a
compaction, placed before the first message it kept, and the rest only tell
the session context.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.transfer.foreign.draft import UnreadableSession, json_lines

MESSAGE_TYPES = {"user", "gemini", "info", "error", "warning"}
CONTEXT_MARK = "<session_context>"
SNAPSHOT_MARK = "<state_snapshot>"
WORKSPACE = re.compile(r"\*\*Workspace Directories:\*\*\n((?:\s*- .+\n?)+)")


@dataclass
class Compaction:
    """Where a compression summarised the history before it."""

    summary: str


def records(text: str, path: str) -> list[dict[str, Any]]:
    """The file's records; a file whose first line is no session metadata is not one this build reads."""
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
        raise UnreadableSession(
            f"{path}: an older Gemini CLI session (one JSON object); this build reads the JSONL session files"
            " Gemini CLI 0.61 writes. Resuming it once in a current Gemini CLI rewrites it as JSONL"
        )
    records = json_lines(text, path)
    if not records or not is_meta(records[0]):
        raise UnreadableSession(
            f"{path}: no session metadata (sessionId, projectHash) first; not a Gemini CLI session of a layout"
            " this build reads (the JSONL session files of Gemini CLI 0.61)"
        )
    return records


def is_meta(record: dict[str, Any]) -> bool:
    return (
        isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str) and "id" not in record
    )


def texts(content: Any, *, thoughts: bool = False) -> list[str]:
    """The text parts of a message's content (a string, or parts), thoughts only or none of them."""
    if isinstance(content, str):
        return [content] if content and not thoughts else []
    return [
        p["text"]
        for p in content or []
        if isinstance(p, dict) and isinstance(p.get("text"), str) and bool(p.get("thought")) == thoughts
    ]


def signature(message: dict[str, Any]) -> tuple[str, str]:
    """What makes a message recognisable in both shapes (a record, or a history rewrite's)."""
    content = message.get("content")
    calls = [c.get("id") for c in message.get("toolCalls") or []]
    for part in content if isinstance(content, list) else []:
        for key in ("functionCall", "functionResponse"):
            if isinstance(part, dict) and isinstance(part.get(key), dict):
                calls.append(part[key].get("id"))
    return str(message.get("type")), json.dumps(calls) if calls else "\n".join(texts(content))


class SessionLog:
    """The file replayed: the messages in order (each its last record), the compactions among them."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.messages: dict[str, dict[str, Any]] = {}
        self.order: list[str | Compaction] = []
        self.summaries: set[str] = set()
        self.contexts: set[str] = set()  # the session context messages' texts
        self.notes: list[str] = []
        self.title: str | None = None
        self.rewound = 0

    def record(self, record: dict[str, Any], number: int) -> None:
        if is_meta(record):
            return
        if isinstance(record.get("$rewindTo"), str):
            self._rewind(record["$rewindTo"])
        elif isinstance(record.get("id"), str):
            if record.get("type") not in MESSAGE_TYPES:
                self.notes.append(f"a Gemini CLI {record.get('type')!r} message (line {number}) was left out")
                return
            if record["id"] not in self.messages:
                self.order.append(record["id"])
            self.messages[record["id"]] = record
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            if isinstance(update.get("summary"), str) and update["summary"]:
                self.title = update["summary"]
            if isinstance(update.get("messages"), list):
                self._history(update["messages"])
        else:
            self.notes.append(f"a record (line {number}) this reader does not know was left out")

    def _rewind(self, message_id: str) -> None:
        at = self.order.index(message_id) if message_id in self.order else 0
        taken, self.order = self.order[at:], self.order[:at]
        self.rewound += sum(1 for entry in taken if isinstance(entry, str))
        if taken:
            self.notes.append(f"{self.rewound} messages a rewind took back were left out")

    def _history(self, history: list[dict[str, Any]]) -> None:
        """A rewrite of the model's history: its session context, and a compaction if it starts from a new snapshot."""
        for message in history:
            text = "\n".join(texts(message.get("content")))
            if message.get("type") == "user" and text.lstrip().startswith(CONTEXT_MARK):
                self.contexts.add(text)
        at = next(
            (
                i
                for i, m in enumerate(history)
                if m.get("type") == "user" and SNAPSHOT_MARK in "\n".join(texts(m.get("content")))
            ),
            None,
        )
        if at is None:
            return
        summary = "\n".join(texts(history[at]["content"])).strip()
        if summary in self.summaries:
            return
        self.summaries.add(summary)
        kept = history[at + 1 :]
        if kept and kept[0].get("type") == "gemini":
            kept = kept[1:]  # the model's acknowledgement of the snapshot, the compaction's own reply
        where = len(self.order)
        if kept:
            first = signature(kept[0])
            for i in range(len(self.order) - 1, -1, -1):
                entry = self.order[i]
                if isinstance(entry, str) and signature(self.messages[entry]) == first:
                    where = i
                    break
        self.order.insert(where, Compaction(summary))

    def workspace(self) -> list[str]:
        """The workspace directories the session context names (where the tools' absolute paths point)."""
        named: list[str] = []
        for context in sorted(self.contexts):
            for block in WORKSPACE.findall(context):
                named += [line.strip()[2:].strip() for line in block.splitlines() if line.strip().startswith("- ")]
        return list(dict.fromkeys(named))

    def location(self, project_hash: str) -> str | None:
        """The directory the session ran in: the one whose sha256 is the file's project hash, of the workspace
        directories the session context names and the ``.project_root`` marker beside the file's folder;
        else the first directory named."""
        named = self.workspace()
        try:  # ~/.gemini/tmp/<project>/.project_root, written beside chats/ in the short-name layout
            marker = (Path(self.path).parent.parent / ".project_root").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            marker = ""
        for directory in [*named, marker]:
            if directory and hashlib.sha256(directory.encode()).hexdigest() == project_hash:
                return directory
        return named[0] if named else None
