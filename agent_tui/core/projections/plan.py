"""The live plan as a projection: each successful ``todo`` call adds a ``plan_update`` row.

The tool writes the whole checklist each time, so the session's plan is its
newest visible row. Rows carry the seq of the ``tool.success`` that settled the
call; a conversation rewind deletes them from its boundary on (the earlier plan
comes back), a fork copies them up to its point, and ``rebuild`` recreates them
through the same :func:`plan_settled`. A failed ``todo`` call leaves the plan as
it was.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from agent_tui.core.log import events as ev
from agent_tui.core.projections.message_rows import dumps
from agent_tui.core.projections.sql import Conn
from agent_tui.vocab.plan import TODO_TOOL, PlanItem

_ITEMS: TypeAdapter[list[PlanItem]] = TypeAdapter(list[PlanItem])


def plan_settled(conn: Conn, sid: str, seq: int, e: ev.ToolSucceeded) -> None:
    """After ``steps.tool_settled``: a ``todo`` call's plan becomes the session's newest."""
    row = conn.execute(
        "SELECT name FROM tool_call WHERE session_id = ? AND assistant_message_id = ? AND call_id = ?",
        (sid, e.assistant_message_id, e.call_id),
    ).fetchone()
    if row is None or row[0] != TODO_TOOL:
        return
    items = parse_items(e.output.data.get("plan"))
    if items is None:
        return  # not a plan the tool wrote: nothing to show (a rebuild must not stop here)
    conn.execute(
        "INSERT INTO plan_update (session_id, seq, call_id, items_json) VALUES (?, ?, ?, ?)",
        (sid, seq, e.call_id, dumps([item.model_dump(mode="json") for item in items])),
    )


def parse_items(raw: Any) -> list[PlanItem] | None:
    try:
        return _ITEMS.validate_python(raw)
    except ValidationError:
        return None
