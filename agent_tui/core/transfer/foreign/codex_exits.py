"""Whether a Codex tool call succeeded: the exit code or status Codex recorded for it.

A rollout tells it in three places, newest layout first:

- an ``event_msg`` ``item_completed`` whose ``item`` (``id`` = the call id) is a
  ``CommandExecution`` with its ``exit_code``, or any item with ``status``
  ``failed`` (a ``FileChange`` that did not apply);
- a shell call's ``function_call_output`` text: ``Process exited with code N``
  before its ``Output:`` (``exec_command``), or ``Exit code: N`` as the first
  line of the output (``apply_patch`` through the shell, the older ``shell`` tool);
- older rollouts' output as a JSON string ``{"output": …, "metadata": {"exit_code": N}}``.

The model saw these texts too, so a failed command imported as failed tells it
nothing new; it makes the transcript show the failure as Codex's did.
"""

from __future__ import annotations

import json
import re
from typing import Any

EXITED = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)\s*$", re.M)


def settled(item: Any) -> tuple[str, bool] | None:
    """(call id, succeeded) from an ``item_completed`` event's item; None when it tells neither."""
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        return None
    code, status = item.get("exit_code"), item.get("status")
    if isinstance(code, int) and not isinstance(code, bool):
        return item["id"], code == 0
    if status in ("completed", "failed"):
        return item["id"], status == "completed"
    return None


def shell_output(text: str) -> tuple[str, bool | None]:
    """A shell call's output text (unwrapped from the older JSON form) and whether its exit code
    was 0 (None when the text names no exit code: a command still running, say)."""
    if text.startswith("{"):
        try:
            wrapped = json.loads(text)
        except ValueError:
            wrapped = None
        if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
            metadata = wrapped.get("metadata")
            code = metadata.get("exit_code") if isinstance(metadata, dict) else None
            return wrapped["output"], code == 0 if isinstance(code, int) else None
    head, _, body = text.partition("Output:\n")
    found = EXITED.search(head) or EXITED.match(body)
    return text, None if found is None else int(found.group(1)) == 0
