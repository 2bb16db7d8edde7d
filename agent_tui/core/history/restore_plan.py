"""What a files rewind to a prompt can restore, and what it cannot, read from the log.

The log holds every tool call after the prompt and every snapshot taken
before one. A call that may change files (``snapshot_hook.may_change_files``)
is covered when the restore point reaches back before it: with git, a
snapshot taken before the call started covers it (the snapshot is the whole
location); without git, only a call with its own pre-images is covered. Every
other call that ran is *unrestorable*, with the reason the session recorded
(snapshots off, no git, a snapshot error) or, when it recorded none, that no
snapshot was taken. A call whose permission was refused did not run. A
snapshot holds only the session's directory: a covered ``bash`` call that
names absolute paths outside it is named too, with those paths (whatever it
changed there stays; the scan is advisory, as the bash tool's own warning).

The plan decides before anything changes: when nothing can be restored but a
call may have changed files, or when with git a call ran before the first
snapshot (restoring it would leave that call's changes in place without
saying which files they were), the rewind is refused with the calls named.
Without git, restoring the pre-images and naming the rest is the documented
fallback.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from agent_tui.core.host.snapshot_hook import may_change_files
from agent_tui.core.log import events as ev
from agent_tui.core.workspace.preimages import PREFIX, patch_paths

NO_SNAPSHOT = "no snapshot was taken before it ran"
_DETAIL_LIMIT = 80


class Unrestorable(BaseModel):
    """A tool call after the prompt whose file changes a files rewind cannot bring back, and why."""

    model_config = ConfigDict(frozen=True)
    call_id: str
    tool: str
    files: list[str]
    """The files the call names (an ``apply_patch``'s); empty when the tool does not say (bash, MCP tools)."""
    detail: str
    """What it ran when it names no files: the bash command, the MCP tool's arguments (cut short)."""
    why: str

    def line(self) -> str:
        target = ", ".join(self.files) if self.files else f"`{self.detail}`"
        return f"{self.tool} {self.call_id} ({target}): {self.why}"


@dataclass(frozen=True)
class RestorePlan:
    point: list[str] | None
    """The snapshot ids to restore (git: the first tree; pre-images: all of them); None: no snapshot."""
    unrestorable: list[Unrestorable]
    """Calls that may have changed files with no snapshot to undo them."""
    outside: list[Unrestorable]
    """Covered ``bash`` calls naming paths outside the session's directory (never a reason to refuse)."""

    def named(self) -> list[Unrestorable]:
        """Everything a files rewind that goes ahead leaves as it was."""
        return [*self.unrestorable, *self.outside]

    def refusal(self) -> str | None:
        """Why a files rewind must change nothing, naming the calls; None when it may go ahead."""
        git = self.point is not None and not self.point[0].startswith(PREFIX)
        if not self.unrestorable or (self.point is not None and not git):
            return None
        named = "; ".join(u.line() for u in self.unrestorable)
        return f"cannot restore the files: {named}; the rewind was not done (a conversation-only rewind still works)"

    def note(self) -> str | None:
        """What a files rewind that went ahead left as it was, in one line; None when it covered everything."""
        if self.point is None and not self.named():
            return "no tool that may change files ran after this prompt; the files are as they were"
        if not self.named():
            return None
        return "not restored: " + "; ".join(u.line() for u in self.named())


def restore_plan(events: list[tuple[bool, ev.DurableEvent]], location: Path) -> RestorePlan:
    """From a session's tool-call, tool-failure and snapshot events, oldest first, each marked whether it
    comes after the prompt (the ones before only tell why a later call found no snapshot)."""
    said: str | None = None  # the last reason the session gave for taking no snapshot
    calls: list[tuple[ev.ToolCalled, bool, str | None]] = []  # (call, a git snapshot came before it, said then)
    own: dict[str, ev.WorkspaceSnapshotted] = {}
    taken: list[str] = []
    did_not_run: set[str] = set()
    for after, event in events:
        match event:
            case ev.WorkspaceSnapshotted(error=error) if error:
                said = error
                if after:
                    own[event.call_id] = event
            case ev.WorkspaceSnapshotted(snapshot_id=snapshot) if after and snapshot:
                own[event.call_id] = event
                taken.append(snapshot)
            case ev.ToolCalled(hosted=False) if after and may_change_files(event.name):
                git_before = any(not s.startswith(PREFIX) for s in taken)
                calls.append((event, git_before, said))
            case ev.ToolFailed() if after and event.error.type.startswith("permission."):
                did_not_run.add(event.call_id)
    point = _point(taken)
    pre_images = point is not None and point[0].startswith(PREFIX)
    missing, outside = [], []
    for call, git_before, said_then in calls:
        if call.call_id in did_not_run:
            continue
        mine = own.get(call.call_id)
        snapshot = (mine.snapshot_id if mine is not None else None) or ""
        own_git = snapshot != "" and not snapshot.startswith(PREFIX)
        if snapshot.startswith(PREFIX) if pre_images else (git_before or own_git):
            outside += [u for u in [_outside(call, location)] if u is not None]
        else:
            why = (mine.error if mine is not None else None) or said_then or NO_SNAPSHOT
            missing.append(_unrestorable(call, why))
    return RestorePlan(point=point, unrestorable=missing, outside=outside)


def _point(taken: list[str]) -> list[str] | None:
    if not taken:
        return None
    if taken[0].startswith(PREFIX):
        return [s for s in taken if s.startswith(PREFIX)]
    return [next(s for s in taken if not s.startswith(PREFIX))]


def _unrestorable(call: ev.ToolCalled, why: str) -> Unrestorable:
    files = patch_paths(str(call.input.get("patch", ""))) if call.name == "apply_patch" else []
    if call.name == "bash":
        detail = str(call.input.get("command", ""))
    else:
        detail = json.dumps(call.input, ensure_ascii=False, sort_keys=True)
    detail = " ".join(detail.split())
    if len(detail) > _DETAIL_LIMIT:
        detail = detail[: _DETAIL_LIMIT - 1] + "…"
    return Unrestorable(call_id=call.call_id, tool=call.name, files=files, detail=detail, why=why)


def _outside(call: ev.ToolCalled, location: Path) -> Unrestorable | None:
    """A ``bash`` call's absolute paths outside ``location``, which no snapshot holds."""
    from agent_tui.tools.paths import is_inside
    from agent_tui.tools.shell_parse import absolute_arguments

    if call.name != "bash":
        return None
    named = absolute_arguments(str(call.input.get("command", "")))
    paths = [p for p in named if not is_inside(Path(os.path.normpath(os.path.expanduser(p))), location)]
    if not paths:
        return None
    why = f"outside the session's directory {location}; a rewind restores only files inside it"
    return Unrestorable(call_id=call.call_id, tool=call.name, files=paths, detail="", why=why)
