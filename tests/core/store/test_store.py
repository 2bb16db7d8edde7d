"""Publishing, projections and reads on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent_tui.core.errors import EventRejected, SessionExists, UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.store.store import Store
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import CompactionReason, Delivery, ErrorType, PermissionReply
from agent_tui.vocab.tool_output import ToolOutput
from agent_tui.vocab.usage import Usage


async def _create(store: Store, sid: str = "ses_1", location: str = "/w") -> None:
    await store.publish(sid, ev.SessionCreated(location=location, project_root=location))


async def test_publish_allocates_seq_and_projects_in_one_commit(store: Store) -> None:
    first = await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    second = await store.publish("ses_1", ev.PromptAdmitted(input_id="msg_1", prompt=ev.text_prompt("hi")))
    assert (first.seq, second.seq) == (1, 2)
    assert await store.head_seq("ses_1") == 2
    record = await store.session("ses_1")
    assert record is not None and record.head_seq == 2 and record.title == "hi"
    assert [e.seq for e in await store.events("ses_1")] == [1, 2]
    assert [e.seq for e in await store.events("ses_1", after=1)] == [2]


async def test_publish_many_is_all_or_nothing(store: Store) -> None:
    await _create(store)
    with pytest.raises(EventRejected, match="msg_missing"):
        await store.publish_many(
            "ses_1",
            [
                ev.PromptAdmitted(input_id="msg_1", prompt=ev.text_prompt("a")),
                ev.PromptPromoted(input_id="msg_missing"),
            ],
        )
    assert await store.head_seq("ses_1") == 1
    assert await store.pending_inputs("ses_1") == []
    stored = await store.publish_many(
        "ses_1",
        [
            ev.PromptAdmitted(input_id="msg_1", prompt=ev.text_prompt("a")),
            ev.PromptPromoted(input_id="msg_1"),
        ],
    )
    assert [s.seq for s in stored] == [2, 3]
    assert [m.id for m in await store.messages("ses_1")] == ["msg_1"]


async def test_unknown_session_and_duplicate_create_are_refused(store: Store) -> None:
    with pytest.raises(UnknownSession, match="unknown session: ses_nope"):
        await store.publish("ses_nope", ev.ModelSelected(model="m"))
    await _create(store)
    with pytest.raises(SessionExists, match="ses_1"):
        await _create(store)
    assert await store.head_seq("ses_nope") == 0


async def test_assistant_projection_folds_step_events(store: Store) -> None:
    await _create(store)
    rate = ErrorInfo(type=ErrorType.RATE_LIMIT, message="429")
    await store.publish_many(
        "ses_1",
        [
            ev.StepStarted(assistant_message_id="msg_a", agent="build", model="m"),
            ev.RetryScheduled(assistant_message_id="msg_a", attempt=2, at_ms=99, error=rate),
        ],
    )
    (row,) = await store.messages("ses_1")
    assert row.data["retry"] == {"attempt": 2, "at_ms": 99, "error": rate.model_dump(mode="json")}
    await store.publish_many(
        "ses_1",
        [
            ev.StepStarted(assistant_message_id="msg_a", agent="build", model="m", attempt=2),
            ev.TextStarted(assistant_message_id="msg_a", ordinal=0),
            ev.TextEnded(assistant_message_id="msg_a", ordinal=0, text="hello"),
            ev.ToolCalled(assistant_message_id="msg_a", call_id="c1", name="bash", input={"command": "ls"}),
            ev.ToolSucceeded(assistant_message_id="msg_a", call_id="c1", output=ToolOutput(text="ok")),
            ev.StepEnded(
                assistant_message_id="msg_a", finish="stop", usage=Usage(input_tokens=5, output_tokens=2), cost=0.5
            ),
        ],
    )
    (row,) = await store.messages("ses_1")
    assert row.kind == "assistant" and row.seq == 2
    assert row.data["retry"] is None and row.data["attempt"] == 2 and row.data["state"] == "ended"
    assert row.data["parts"] == [{"type": "text", "ordinal": 0, "text": "hello"}, {"type": "tool", "call_id": "c1"}]
    (call,) = await store.tool_calls("ses_1")
    assert call.state == "success" and call.output == {"text": "ok", "data": {}, "images": []}
    assert await store.tool_calls("ses_1", states=["running"]) == []
    record = await store.session("ses_1")
    assert record is not None
    assert (record.input_tokens, record.output_tokens, record.cost, record.message_count) == (5, 2, 0.5, 1)
    assert record.last_message == "hello"


async def test_call_ids_are_scoped_to_their_step(store: Store) -> None:
    await _create(store)
    for mid in ("msg_a", "msg_b"):
        await store.publish_many(
            "ses_1",
            [
                ev.StepStarted(assistant_message_id=mid, agent="build", model="m"),
                ev.ToolCalled(assistant_message_id=mid, call_id="call_0", name="read"),
            ],
        )
    calls = await store.tool_calls("ses_1", states=["running"])
    assert [(c.assistant_message_id, c.call_id) for c in calls] == [("msg_a", "call_0"), ("msg_b", "call_0")]


async def test_withdraw_is_refused_once_promoted(store: Store) -> None:
    await _create(store)
    await store.publish_many(
        "ses_1",
        [
            ev.PromptAdmitted(input_id="msg_1", prompt=ev.text_prompt("a")),
            ev.PromptPromoted(input_id="msg_1"),
        ],
    )
    with pytest.raises(EventRejected, match="already promoted"):
        await store.publish("ses_1", ev.PromptWithdrawn(input_id="msg_1"))
    with pytest.raises(EventRejected, match="cannot promote input msg_1: it is promoted"):
        await store.publish("ses_1", ev.PromptPromoted(input_id="msg_1"))


async def test_pending_inputs_in_admission_order_with_compaction_rows(store: Store) -> None:
    await _create(store)
    await store.publish_many(
        "ses_1",
        [
            ev.PromptAdmitted(input_id="msg_1", prompt=ev.text_prompt("a")),
            ev.CompactionAdmitted(input_id="msg_c"),
            ev.PromptAdmitted(input_id="msg_2", prompt=ev.text_prompt("b"), delivery=Delivery.QUEUE),
            ev.PromptAdmitted(input_id="msg_3", prompt=ev.text_prompt("c")),
            ev.PromptWithdrawn(input_id="msg_3"),
        ],
    )
    pending = await store.pending_inputs("ses_1")
    assert [(p.id, p.kind, p.delivery) for p in pending] == [
        ("msg_1", "prompt", "steer"),
        ("msg_c", "compaction", None),
        ("msg_2", "prompt", "queue"),
    ]
    with pytest.raises(EventRejected, match="already has a pending compaction"):
        await store.publish("ses_1", ev.CompactionAdmitted(input_id="msg_c2"))
    withdrawn = await store.input("msg_3")
    assert withdrawn is not None and withdrawn.withdrawn and withdrawn.settled_seq == 6


async def test_permission_always_saves_an_approval_for_the_project(store: Store) -> None:
    await _create(store, location="/proj")
    await store.publish("ses_1", ev.PermissionAsked(request_id="perm_1", action="bash", save=["git status*"]))
    assert [p.request_id for p in await store.pending_permissions("ses_1")] == ["perm_1"]
    await store.publish("ses_1", ev.PermissionReplied(request_id="perm_1", reply=PermissionReply.ALWAYS))
    assert await store.pending_permissions("ses_1") == []
    assert [(a.action, a.pattern) for a in await store.approvals("/proj")] == [("bash", "git status*")]
    with pytest.raises(EventRejected, match="already answered"):
        await store.publish("ses_1", ev.PermissionReplied(request_id="perm_1", reply=PermissionReply.ONCE))


async def test_checkpoint_context_and_move(store: Store) -> None:
    await _create(store)
    await store.publish_many(
        "ses_1",
        [
            ev.InstructionsBaselined(baseline="base", applied={"k": 1}),
            ev.ContextPut(key="api/a", value=[1, 2]),
            ev.InstructionsUpdated(message_id="msg_s", text="changed", applied={"k": 2}),
        ],
    )
    checkpoint = await store.checkpoint("ses_1")
    assert checkpoint is not None and (checkpoint.baseline_seq, checkpoint.applied) == (2, {"k": 2})
    assert await store.context_entries("ses_1") == {"api/a": [1, 2]}
    await store.publish("ses_1", ev.SessionMoved(location="/w2", project_root="/w2"))
    assert await store.checkpoint("ses_1") is None
    assert (await store.most_recent_session("/w2")).id == "ses_1"  # type: ignore[union-attr]


async def test_messages_page_by_seq(store: Store) -> None:
    await _create(store)
    for n in range(6):
        await store.publish_many(
            "ses_1",
            [
                ev.PromptAdmitted(input_id=f"msg_{n}", prompt=ev.text_prompt(str(n))),
                ev.PromptPromoted(input_id=f"msg_{n}"),
            ],
        )
    rows = await store.messages("ses_1")
    assert [r.id for r in rows] == [f"msg_{n}" for n in range(6)]
    assert [r.id for r in await store.messages("ses_1", after=rows[1].seq, limit=2)] == ["msg_2", "msg_3"]
    assert [r.id for r in await store.messages("ses_1", before=rows[4].seq, limit=2)] == ["msg_2", "msg_3"]


async def test_list_sessions_newest_first_by_location_and_search(store: Store) -> None:
    for sid, location, text in [
        ("ses_a", "/x", "parse the config"),
        ("ses_b", "/y", "render widgets"),
        ("ses_c", "/x", "deploy"),
    ]:
        await store.publish(sid, ev.SessionCreated(location=location, project_root=location))
        await store.publish_many(
            sid,
            [
                ev.PromptAdmitted(input_id=f"msg_{sid}", prompt=ev.text_prompt(text)),
                ev.PromptPromoted(input_id=f"msg_{sid}"),
            ],
        )
    await store.publish_many(
        "ses_c",
        [
            ev.StepStarted(assistant_message_id="msg_ac", agent="build", model="m"),
            ev.TextStarted(assistant_message_id="msg_ac", ordinal=0),
            ev.TextEnded(assistant_message_id="msg_ac", ordinal=0, text="Kubernetes manifests updated"),
        ],
    )
    assert [s.id for s in await store.list_sessions()] == ["ses_c", "ses_b", "ses_a"]
    assert [s.id for s in await store.list_sessions(location="/x")] == ["ses_c", "ses_a"]
    assert [s.id for s in await store.list_sessions(search="kube")] == ["ses_c"]  # assistant text, prefix
    assert [s.id for s in await store.list_sessions(search="widgets")] == ["ses_b"]
    assert [s.id for s in await store.list_sessions(search='config "quoted')] == []
    assert [s.id for s in await store.list_sessions(limit=1, offset=1)] == ["ses_b"]
    await store.publish("ses_a", ev.SessionRenamed(title="Zebra migration"))
    assert [s.id for s in await store.list_sessions(search="zebra")] == ["ses_a"]


async def test_counters_equal_row_counts(sqlite_store: Store, publish_every_event, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    await publish_every_event(sqlite_store, str(tmp_path))
    conn = sqlite3.connect(sqlite_store.path)
    rows = conn.execute(
        "SELECT s.id, s.message_count, (SELECT count(*) FROM message m WHERE m.session_id = s.id),"
        " s.head_seq, (SELECT max(seq) FROM event e WHERE e.session_id = s.id) FROM session s"
    ).fetchall()
    conn.close()
    assert len(rows) == 3
    for _sid, count, actual, head, max_seq in rows:
        assert (count, head) == (actual, max_seq)
    main = await sqlite_store.session("ses_main")
    assert main is not None and main.message_count == 8  # with the shell message and the hook context
    # two steps and an approved MCP sampling request, each 120 in and 30 out
    assert (main.input_tokens, main.output_tokens, main.cost) == (360, 90, 0.26)


async def test_stale_and_foreign_writes_do_not_touch_projections(store: Store) -> None:
    await _create(store)
    with pytest.raises(EventRejected, match="no step started"):
        await store.publish("ses_1", ev.TextEnded(assistant_message_id="msg_x", ordinal=0, text="x"))
    with pytest.raises(EventRejected, match="unknown tool call"):
        await store.publish(
            "ses_1",
            ev.ToolFailed(assistant_message_id="msg_x", call_id="c", error=ErrorInfo(type="tool.stale", message="x")),
        )
    assert await store.head_seq("ses_1") == 1


async def test_a_step_cannot_reopen_a_message_of_another_kind(store: Store) -> None:
    await _create(store)
    await store.publish_many(
        "ses_1",
        [
            ev.PromptAdmitted(input_id="msg_u", prompt=ev.text_prompt("hi")),
            ev.PromptPromoted(input_id="msg_u"),
        ],
    )
    with pytest.raises(EventRejected, match="msg_u is a user message, not assistant"):
        await store.publish("ses_1", ev.StepStarted(assistant_message_id="msg_u", agent="build", model="m"))


async def test_a_closed_store_refuses_reads_and_writes(tmp_path: Path) -> None:
    from agent_tui.core.errors import StoreError

    closed = await Store.open(tmp_path / "c.db")
    await closed.close()
    await closed.close()  # idempotent
    with pytest.raises(StoreError, match="is closed"):
        await closed.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    with pytest.raises(StoreError, match="is closed"):
        await closed.session("ses_1")


async def test_a_settled_compaction_barrier_cannot_run_again(store: Store) -> None:
    await _create(store)
    manual = CompactionReason.MANUAL
    await store.publish_many(
        "ses_1",
        [
            ev.CompactionAdmitted(input_id="msg_c"),
            ev.CompactionStarted(message_id="msg_k", reason=manual, input_id="msg_c"),
        ],
    )
    running = await store.input("msg_c")
    assert running is not None and (running.promoted_seq, running.settled_seq) == (3, None)
    assert [(m.id, m.data["state"]) for m in await store.messages("ses_1")] == [("msg_k", "running")]
    await store.publish(
        "ses_1",
        ev.CompactionFailed(
            message_id="msg_k", reason=manual, input_id="msg_c", error=ErrorInfo(type="provider.internal", message="x")
        ),
    )
    settled = await store.input("msg_c")
    assert settled is not None and (settled.promoted_seq, settled.settled_seq) == (3, 4)
    with pytest.raises(EventRejected, match="msg_c is not a pending compaction"):
        await store.publish("ses_1", ev.CompactionStarted(message_id="msg_k2", reason=manual, input_id="msg_c"))
    assert (await store.session("ses_1")).message_count == 1  # type: ignore[union-attr]
