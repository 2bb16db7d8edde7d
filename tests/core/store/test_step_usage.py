"""The ``step_usage`` ledger (schema V5): what each step spent, kept as spent. An older file's steps
are filled in from its log by the migration; a rebuild gives the same rows; subagents' sessions
count toward their parent's ``usage``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_tui.core.log import events as ev
from agent_tui.core.store import schema
from agent_tui.core.store.store import Store
from agent_tui.vocab.usage import Usage


def _rows(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT session_id, seq, model, agent, input_tokens, output_tokens, cost, cost_source"
            " FROM step_usage ORDER BY session_id, seq"
        ).fetchall()
    finally:
        conn.close()


async def test_a_v4_file_gets_its_logged_steps_as_usage_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for script in schema.MIGRATIONS[:4]:
        for statement in schema._statements(script):
            conn.execute(statement)
    conn.execute(
        "INSERT INTO session (id, location, project_root, agent, created, updated) VALUES ('ses_old', '/w', '/w', 'build', 1, 1)"
    )
    logged = [
        ev.SessionCreated(location="/w", project_root="/w"),
        ev.StepStarted(assistant_message_id="msg_a", agent="build", model="m1"),
        ev.StepFailed(assistant_message_id="msg_a", error={"type": "provider.overloaded", "message": "x"}),
        ev.StepStarted(assistant_message_id="msg_a", agent="build", model="m1", attempt=2),
        ev.StepEnded(
            assistant_message_id="msg_a", finish="stop", usage=Usage(input_tokens=7, output_tokens=3), cost=0.5
        ),
        ev.StepStarted(assistant_message_id="msg_b", agent="plan", model="m2"),
        ev.StepFailed(
            assistant_message_id="msg_b",
            error={"type": "content_filter", "message": "x"},
            usage=Usage(input_tokens=4, output_tokens=1),
        ),
    ]
    for seq, event in enumerate(logged, start=1):
        type_, data = ev.encode(event)
        data = data.replace(',"cost_source":null', "")  # as an older build wrote it
        conn.execute("INSERT INTO event VALUES ('ses_old', ?, ?, ?, ?)", (seq, type_, 1000 + seq, data))
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    store = await Store.open(path)
    try:
        expected = [("ses_old", 5, "m1", "build", 7, 3, 0.5, None), ("ses_old", 7, "m2", "plan", 4, 1, None, None)]
        assert _rows(path) == expected
        await store.rebuild()  # the projector and the migration agree
        assert _rows(path) == expected
    finally:
        await store.close()


async def test_a_parents_usage_counts_its_subagents_sessions_per_model_and_agent(store: Store) -> None:
    await store.publish("ses_p", ev.SessionCreated(location="/w", project_root="/w"))
    link = ev.SpawnedBy(session_id="ses_p", assistant_message_id="msg_p", call_id="call_1")
    await store.publish("ses_c", ev.SessionCreated(location="/w", project_root="/w", spawned_by=link))
    for sid, agent, model, cost in [("ses_p", "build", "m1", 1.0), ("ses_c", "explore", "m2", None)]:
        await store.publish(sid, ev.StepStarted(assistant_message_id=f"msg_{sid}", agent=agent, model=model))
        usage = Usage(input_tokens=100, output_tokens=10)
        await store.publish(sid, ev.StepEnded(assistant_message_id=f"msg_{sid}", finish="stop", usage=usage, cost=cost))
    spent = await store.session_usage("ses_p")
    assert spent.sessions == 2
    assert spent.total.input_tokens == 200 and spent.total.cost == 1.0 and spent.total.unpriced_steps == 1
    assert spent.total.cost_text() == "$1.0000 + unknown"
    assert {r.key: r.cost_text() for r in spent.by_agent} == {"build": "$1.0000", "explore": "unknown"}
    assert [r.key for r in spent.by_model] == ["m1", "m2"]
    child = await store.session_usage("ses_c")
    assert child.sessions == 1 and child.total.cost is None
