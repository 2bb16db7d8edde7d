"""The Sessions facade: creation, idempotent admission, inbox, context, history."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_tui.core.errors import EventRejected, UnknownSession
from agent_tui.core.host.permission_asks import UnknownPermission
from agent_tui.core.inbox.admission import AdmissionConflict
from agent_tui.core.log import events as ev
from agent_tui.core.sessions import InvalidRequest, Sessions, open_sessions
from agent_tui.core.store.store import Store
from agent_tui.vocab.kinds import CompactionReason
from tests.fakes.executors import RecordingExecutor


@pytest.fixture
def executor() -> RecordingExecutor:
    return RecordingExecutor()


@pytest.fixture
def sessions(store: Store, executor: RecordingExecutor) -> Sessions:
    return Sessions(store, executor=executor)


async def test_create_generates_or_reuses_ids(sessions: Sessions, workdir: Path) -> None:
    made = await sessions.create(location=workdir)
    assert made.id.startswith("ses_") and made.location == str(workdir) and made.project_root == str(workdir)
    assert made.agent == "build" and made.head_seq == 1
    named = await sessions.create("ses_mine", location=workdir / ".git", title="Named")
    assert (named.id, named.title, named.project_root) == ("ses_mine", "Named", str(workdir))
    again = await sessions.create("ses_mine", location="/elsewhere", title="Other")
    assert again == named  # a reused id returns the existing session untouched
    assert await sessions._store.head_seq("ses_mine") == 1


async def test_prompt_omitted_id_admits_and_wakes(
    sessions: Sessions, executor: RecordingExecutor, workdir: Path
) -> None:
    sid = (await sessions.create(location=workdir)).id
    receipt = await sessions.prompt(sid, "hello")
    assert receipt.input_id.startswith("msg_") and receipt.kind == "prompt" and receipt.delivery == "steer"
    assert receipt.admitted_seq == 2
    assert [p.id for p in await sessions.pending(sid)] == [receipt.input_id]
    assert executor.calls == [("wake", sid)]


async def test_exact_reuse_returns_the_same_receipt_and_wakes_again(
    sessions: Sessions, executor: RecordingExecutor, workdir: Path
) -> None:
    sid = (await sessions.create(location=workdir)).id
    first = await sessions.prompt(sid, "hello", id="msg_1", delivery="queue")
    again = await sessions.prompt(sid, [{"type": "text", "text": "hello"}], id="msg_1", delivery="queue")
    quiet = await sessions.prompt(sid, "hello", id="msg_1", delivery="queue", resume=False)
    assert first == again == quiet
    assert await sessions._store.head_seq(sid) == 2  # one admission event only
    assert executor.calls == [("wake", sid), ("wake", sid)]


async def test_resume_false_admits_only(sessions: Sessions, executor: RecordingExecutor, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    await sessions.prompt(sid, "later", resume=False)
    assert executor.calls == [] and len(await sessions.pending(sid)) == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"session": "other"}, "already admitted to session"),
        ({"prompt": "goodbye"}, "different prompt"),
        ({"delivery": "queue"}, "delivery steer, not queue"),
    ],
)
async def test_reuse_with_anything_different_is_a_conflict(
    sessions: Sessions, workdir: Path, change: dict[str, str], message: str
) -> None:
    sid = (await sessions.create(location=workdir)).id
    other = (await sessions.create(location=workdir)).id
    await sessions.prompt(sid, "hello", id="msg_1")
    args = {"session": sid, "prompt": "hello", "delivery": "steer"} | change
    target = other if args["session"] == "other" else sid
    with pytest.raises(AdmissionConflict, match=message):
        await sessions.prompt(target, args["prompt"], id="msg_1", delivery=args["delivery"])
    assert await sessions._store.head_seq(other) == 1


async def test_reuse_of_an_existing_message_id_is_a_conflict(sessions: Sessions, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    await sessions._store.publish(sid, ev.StepStarted(assistant_message_id="msg_a", agent="build", model="m"))
    with pytest.raises(AdmissionConflict, match="msg_a is already the id of another message"):
        await sessions.prompt(sid, "hi", id="msg_a")


async def test_exact_reuse_after_promotion_keeps_the_receipt(sessions: Sessions, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    first = await sessions.prompt(sid, "hello", id="msg_1")
    await sessions._store.publish(sid, ev.PromptPromoted(input_id="msg_1"))
    assert await sessions.prompt(sid, "hello", id="msg_1") == first
    assert [m.id for m in await sessions.messages(sid)] == ["msg_1"]


async def test_concurrent_admissions_of_one_id_admit_once(sessions: Sessions, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    receipts = await asyncio.gather(*(sessions.prompt(sid, "same", id="msg_1") for _ in range(10)))
    assert len(set(receipts)) == 1 and await sessions._store.head_seq(sid) == 2


async def test_bad_prompts_and_unknown_sessions(sessions: Sessions) -> None:
    with pytest.raises(InvalidRequest, match="empty"):
        await sessions.prompt("ses_x", "   ")
    with pytest.raises(InvalidRequest, match="delivery must be steer or queue"):
        await sessions.prompt("ses_x", "hi", delivery="later")
    with pytest.raises(InvalidRequest, match="invalid prompt part"):
        await sessions.prompt("ses_x", [{"type": "video", "path": "x"}])
    with pytest.raises(UnknownSession, match="ses_x"):
        await sessions.prompt("ses_x", "hi")
    with pytest.raises(UnknownSession):
        await sessions.history("ses_x")


async def test_withdraw_and_pending_order(sessions: Sessions, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    a = await sessions.prompt(sid, "a", delivery="queue")
    b = await sessions.prompt(sid, "b")
    await sessions.withdraw(sid, a.input_id)
    assert [p.id for p in await sessions.pending(sid)] == [b.input_id]
    await sessions._store.publish(sid, ev.PromptPromoted(input_id=b.input_id))
    with pytest.raises(EventRejected, match="already promoted"):
        await sessions.withdraw(sid, b.input_id)


async def test_compact_coalesces_one_pending_barrier(sessions: Sessions, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    first = await sessions.compact(sid)
    assert await sessions.compact(sid) == first
    pending = await sessions.pending(sid)
    assert [(p.id, p.kind) for p in pending] == [(first.input_id, "compaction")]
    (divider,) = await sessions.messages(sid)
    assert divider.kind == "compaction" and divider.data["state"] == "queued"
    await sessions._store.publish_many(
        sid,
        [
            ev.CompactionStarted(message_id=first.input_id, reason=CompactionReason.MANUAL, input_id=first.input_id),
            ev.CompactionEnded(
                message_id=first.input_id,
                reason=CompactionReason.MANUAL,
                input_id=first.input_id,
                summary="s",
                recent="r",
            ),
        ],
    )
    second = await sessions.compact(sid)
    assert second.input_id != first.input_id
    settled = await sessions._store.input(first.input_id)
    assert settled is not None and settled.settled_seq is not None


async def test_context_entries_are_events_and_core_keys_are_reserved(sessions: Sessions, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    await sessions.context_entries.put(sid, "api/ticket", {"id": 3})
    assert await sessions.context_entries.read(sid) == {"api/ticket": {"id": 3}}
    for key, message in [("core/date", "reserved"), ("ticket", "api/<name>"), ("api/", "api/<name>")]:
        with pytest.raises(InvalidRequest, match=message):
            await sessions.context_entries.put(sid, key, 1)
    with pytest.raises(InvalidRequest, match="not JSON"):
        await sessions.context_entries.put(sid, "api/x", object())
    await sessions.context_entries.delete(sid, "api/ticket")
    await sessions.context_entries.delete(sid, "api/ticket")  # absent: writes nothing
    types = [e.type for e in (await sessions.history(sid)).data]
    assert types == ["session.created.1", "session.context.put.1", "session.context.deleted.1"]


async def test_history_pages_with_has_more(sessions: Sessions, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    await sessions._store.publish_many(sid, [ev.ModelSelected(model=f"m{n}") for n in range(149)])
    first = await sessions.history(sid)
    assert len(first.data) == 50 and first.has_more and first.data[0].seq == 1
    pages, after = [first], first.data[-1].seq
    while pages[-1].has_more:
        pages.append(await sessions.history(sid, after=after, limit=100))
        after = pages[-1].data[-1].seq
    assert [e.seq for p in pages for e in p.data] == list(range(1, 151))
    assert [len(p.data) for p in pages] == [50, 100]
    with pytest.raises(InvalidRequest, match="between 1 and 100"):
        await sessions.history(sid, limit=101)


async def test_permission_reply_resolves_a_waiter(sessions: Sessions, workdir: Path) -> None:
    sid = (await sessions.create(location=workdir)).id
    await sessions._store.publish(sid, ev.PermissionAsked(request_id="perm_1", action="bash", save=["ls*"]))
    waiter = asyncio.create_task(sessions.permissions.wait_reply("perm_1"))
    await asyncio.sleep(0.01)
    assert not waiter.done() and [p.request_id for p in await sessions.permissions.pending(sid)] == ["perm_1"]
    await sessions.permissions.reply("perm_1", "reject", message="use git instead")
    answered = await asyncio.wait_for(waiter, 5)
    assert (answered.reply, answered.message) == ("reject", "use git instead")
    assert await sessions.permissions.pending(sid) == []
    with pytest.raises(UnknownPermission):
        await sessions.permissions.reply("perm_nope", "once")


async def test_execution_delegates_and_idle_default_is_a_no_op(
    sessions: Sessions, executor: RecordingExecutor, store: Store, workdir: Path
) -> None:
    sid = (await sessions.create(location=workdir)).id
    await sessions.interrupt(sid)
    await sessions.run(sid)
    assert executor.calls == [("interrupt", sid, "user"), ("run", sid)]
    idle = Sessions(store)
    await idle.interrupt("ses_missing")
    await idle.wake(sid)
    assert idle.active() == {}


async def test_open_sessions_uses_the_configured_database(agent_home: Path, workdir: Path) -> None:
    opened = await open_sessions()
    try:
        await opened.create("ses_1", location=workdir)
    finally:
        await opened.close()
    assert (agent_home / "agent-tui.db").is_file()
