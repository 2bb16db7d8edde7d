"""Claude Code's subagents: the ``Agent`` (formerly ``Task``) call and the transcript kept beside the session.

Claude Code 2.1 writes a subagent's own conversation to
``<session id>/subagents/agent-<agent id>.jsonl`` next to the session's file
(every record ``isSidechain``, with the ``agentId``), and an
``agent-<agent id>.meta.json`` naming the call (``toolUseId``) and the
``agentType``. The call's result in the session names the subagent too
(``toolUseResult.agentId``) and holds its final answer (``toolUseResult.content``).
Older versions wrote sidechain records into the session's own file instead;
those stay notes.

Here that is what agent-tui does with its own subagents: the call is our
``task`` (``subagent_type`` our agent where Claude Code's built-in means the
same: ``general-purpose`` is ``general``, ``Explore`` is ``explore``; others keep
their name, which a project's ``.claude/agents`` may define here too), its result
the subagent's answer, and the transcript a child session spawned by that call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.transfer.foreign.draft import UnreadableSession

TOOLS = ("Agent", "Task")
OURS = {"general-purpose": "general", "Explore": "explore"}
KEPT = ("description", "prompt", "subagent_type")


@dataclass(frozen=True)
class Transcript:
    """A subagent's transcript beside a session file, with what its meta file says."""

    agent_id: str
    path: Path
    call_id: str | None  # the meta file's toolUseId
    text: str


def task_input(given: dict[str, Any]) -> dict[str, Any] | None:
    """An ``Agent`` call's input as our ``task``'s (its other options, ``task`` has no place for:
    the reader notes them, see ``KEPT``); None when it names no prompt."""
    prompt = given.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    kind = given.get("subagent_type")
    agent = OURS.get(kind, kind) if isinstance(kind, str) and kind else "general"
    about = given.get("description")
    description = about if isinstance(about, str) and about.strip() else " ".join(prompt.split()[:5])
    return {"agent": agent, "description": description[:80], "prompt": prompt}


def answer(structured: Any) -> str | None:
    """The subagent's final answer from the call's ``toolUseResult`` (None when it has none: an
    older version, or a subagent launched to run in the background)."""
    if not isinstance(structured, dict) or not isinstance(structured.get("content"), list):
        return None
    texts = [b.get("text") for b in structured["content"] if isinstance(b, dict) and b.get("type") == "text"]
    found = "\n".join(t for t in texts if isinstance(t, str) and t)
    return found or None


def beside(session_path: str) -> list[Transcript]:
    """The subagents' transcripts Claude Code kept beside this session file, in name order."""
    folder = Path(session_path).with_suffix("") / "subagents"
    try:
        if not folder.is_dir():
            return []
        found = []
        for path in sorted(folder.glob("agent-*.jsonl")):
            meta = path.with_name(path.stem + ".meta.json")
            about = json.loads(meta.read_text(encoding="utf-8")) if meta.is_file() else {}
            call = about.get("toolUseId") if isinstance(about, dict) else None
            text = path.read_text(encoding="utf-8")
            found.append(
                Transcript(path.stem.removeprefix("agent-"), path, call if isinstance(call, str) else None, text)
            )
        return found
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise UnreadableSession(
            f"{folder}: cannot read the session's subagent transcripts ({error}); nothing was imported"
        ) from None
