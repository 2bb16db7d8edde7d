"""Idempotent admission of prompts and compaction barriers into the inbox.

Each function runs inside one writer transaction (``Store.transact``), so the
"does this id exist?" check and the insert cannot race with another caller or
another process. Rules (spec, "sessions.prompt"):

* omitted id -> a new ``msg_`` id (the id of the user message it becomes);
* supplied id, absent -> one ``prompt.admitted`` event;
* same id + same session, prompt and delivery -> the same :class:`Receipt`;
* same id with anything different -> :class:`AdmissionConflict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agent_tui.core.errors import AdmissionConflict as AdmissionConflict  # its home; the door names it here
from agent_tui.core.errors import InvalidRequest
from agent_tui.core.log import events as ev
from agent_tui.core.projections.inbox import fingerprint
from agent_tui.core.store.writer import Tx
from agent_tui.vocab.kinds import Delivery


class Receipt(BaseModel):
    model_config = ConfigDict(frozen=True)
    input_id: str
    session_id: str
    kind: Literal["prompt", "compaction"]
    delivery: str | None
    admitted_seq: int


def prompt_parts(prompt: str | Sequence[Any]) -> list[ev.PromptPart]:
    """The prompt as the log's parts (a string is one text part), checked as admission would take them:
    a bad part or an empty prompt is ``InvalidRequest``, refused before anything is written."""
    raw = ev.text_prompt(prompt) if isinstance(prompt, str) else list(prompt)
    try:
        parts = ev.PromptAdmitted(input_id="msg_check", prompt=raw).prompt
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "prompt"
        raise InvalidRequest(f"invalid prompt part {where}: {first['msg']}") from None
    if not parts or not ev.prompt_text(parts).strip():
        raise InvalidRequest("the prompt is empty")
    return parts


def _existing(tx: Tx, input_id: str) -> tuple[Any, ...] | None:
    row: tuple[Any, ...] | None = tx.conn.execute(
        "SELECT session_id, kind, delivery, fingerprint, admitted_seq FROM session_input WHERE id = ?",
        (input_id,),
    ).fetchone()
    return row


def admit_prompt(
    tx: Tx, session_id: str, input_id: str, prompt: list[ev.PromptPart], delivery: Delivery
) -> tuple[Receipt, bool]:
    """The receipt and whether this call admitted it (False: an exact retry)."""
    parts = [part.model_dump(mode="json") for part in prompt]
    wanted = fingerprint(session_id, "prompt", parts, delivery.value)
    row = _existing(tx, input_id)
    if row is not None:
        owner, kind, old_delivery, old_fingerprint, seq = row
        if owner != session_id:
            raise AdmissionConflict(f"input id {input_id} was already admitted to session {owner}")
        if kind != "prompt":
            raise AdmissionConflict(f"input id {input_id} was already admitted as a {kind}")
        if old_delivery != delivery.value:
            raise AdmissionConflict(
                f"input id {input_id} was already admitted with delivery {old_delivery}, not {delivery.value}"
            )
        if old_fingerprint != wanted:
            raise AdmissionConflict(f"input id {input_id} was already admitted with a different prompt")
        return Receipt(
            input_id=input_id, session_id=session_id, kind="prompt", delivery=old_delivery, admitted_seq=seq
        ), False
    if tx.conn.execute("SELECT 1 FROM message WHERE id = ?", (input_id,)).fetchone():
        raise AdmissionConflict(f"input id {input_id} is already the id of another message")
    stored = tx.append(session_id, ev.PromptAdmitted(input_id=input_id, prompt=prompt, delivery=delivery))
    return Receipt(
        input_id=input_id, session_id=session_id, kind="prompt", delivery=delivery.value, admitted_seq=stored.seq
    ), True


def admit_compaction(tx: Tx, session_id: str, input_id: str) -> tuple[Receipt, bool]:
    """One coalesced manual barrier: an unpromoted pending one is returned as is."""
    row = tx.conn.execute(
        "SELECT id, admitted_seq FROM session_input WHERE session_id = ? AND kind = 'compaction'"
        " AND promoted_seq IS NULL AND withdrawn = 0",
        (session_id,),
    ).fetchone()
    if row is not None:
        return Receipt(
            input_id=row[0], session_id=session_id, kind="compaction", delivery=None, admitted_seq=row[1]
        ), False
    if _existing(tx, input_id) or tx.conn.execute("SELECT 1 FROM message WHERE id = ?", (input_id,)).fetchone():
        raise AdmissionConflict(f"input id {input_id} is already in use")
    stored = tx.append(session_id, ev.CompactionAdmitted(input_id=input_id))
    return Receipt(
        input_id=input_id, session_id=session_id, kind="compaction", delivery=None, admitted_seq=stored.seq
    ), True
