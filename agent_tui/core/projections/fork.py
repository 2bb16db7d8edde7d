"""The projector of ``session.forked``: a fork's history is a copy, made in the fork's own transaction.

The fork's log starts at ``parent_seq + 1`` (``session.created`` naming the
parent, then ``session.forked``), so copied rows keep the parent's seqs and the
fork's own rows sort after them. Every message, tool call and plan update with ``seq <=
parent_seq`` is copied under a derived id (``ids.derived_id``: the same for a
rebuild), with its search text; the ``api/*`` context entries are copied; the
instruction checkpoint is copied when the fork is taken at the parent's head
(a fork from an earlier prompt is a revert: the checkpoint starts afresh).
Nothing is shared afterwards: the fork's rows are its own.
"""

from __future__ import annotations

from agent_tui.core.log.ids import derived_id
from agent_tui.core.projections.message_rows import index_text
from agent_tui.core.projections.rewind import refresh_last_message
from agent_tui.core.projections.sql import Conn, dialect_of


def fork_from(conn: Conn, sid: str, parent: str, parent_seq: int) -> None:
    conn.execute("UPDATE session SET parent_id = ? WHERE id = ?", (parent, sid))
    messages = conn.execute(
        "SELECT id, seq, kind, data_json, created, updated FROM message WHERE session_id = ? AND seq <= ? ORDER BY seq",
        (parent, parent_seq),
    ).fetchall()
    conn.executemany(
        "INSERT INTO message (id, session_id, seq, kind, data_json, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (derived_id(mid, sid), sid, seq, kind, data, created, updated)
            for mid, seq, kind, data, created, updated in messages
        ],
    )
    conn.execute("UPDATE session SET message_count = message_count + ? WHERE id = ?", (len(messages), sid))
    texts = dialect_of(conn).message_texts(conn, parent)
    copied = {mid for mid, *_ in messages}
    for mid, text in texts:
        if mid in copied:
            index_text(conn, sid, derived_id(mid, sid), text)
    calls = conn.execute(
        "SELECT assistant_message_id, call_id, seq, name, input_json, state, output_json, error_json,"
        " call_meta_json, result_meta_json, hosted FROM tool_call WHERE session_id = ? AND seq <= ?",
        (parent, parent_seq),
    ).fetchall()
    conn.executemany(  # the copies point at the copied assistant messages
        "INSERT INTO tool_call (session_id, assistant_message_id, call_id, seq, name, input_json, state, output_json,"
        " error_json, call_meta_json, result_meta_json, hosted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(sid, derived_id(amid, sid), *rest) for amid, *rest in calls],
    )
    conn.execute(
        "INSERT INTO plan_update (session_id, seq, call_id, items_json)"
        " SELECT ?, seq, call_id, items_json FROM plan_update WHERE session_id = ? AND seq <= ?",
        (sid, parent, parent_seq),
    )
    conn.execute(
        "INSERT INTO context_entry (session_id, key, value_json) SELECT ?, key, value_json FROM context_entry"
        " WHERE session_id = ?",
        (sid, parent),
    )
    (head,) = conn.execute("SELECT head_seq FROM session WHERE id = ?", (parent,)).fetchone()
    if head == parent_seq:
        conn.execute(
            "INSERT INTO instruction_checkpoint (session_id, baseline, baseline_seq, applied_json)"
            " SELECT ?, baseline, baseline_seq, applied_json FROM instruction_checkpoint WHERE session_id = ?",
            (sid, parent),
        )
    refresh_last_message(conn, sid)
