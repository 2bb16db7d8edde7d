"""``db copy`` of a fork whose parent went on after the fork was taken: the fork's projections
are a copy of its parent's *as it stood then*, so the copy follows the source's commit order."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.log import events as ev
from agent_tui.core.store.copy import copy_log
from agent_tui.core.store.store import Store
from tests.core.projections.engines import pg_snapshot, sqlite_snapshot
from tests.core.store.pg.helpers import created, prompt
from tests.core.store.test_copy import pg_rows, sqlite_rows

FORK_AT = 7


def answered(input_id: str, message_id: str, text: str) -> list[ev.DurableEvent]:
    """A prompt, taken, and a one-text answer: five events."""
    return [
        prompt(input_id, text),
        ev.PromptPromoted(input_id=input_id),
        ev.StepStarted(assistant_message_id=message_id, agent="build", model="m1"),
        ev.TextEnded(assistant_message_id=message_id, ordinal=0, text=f"answer to {text}"),
        ev.StepEnded(assistant_message_id=message_id, finish="stop"),
    ]


def forked(parent: str) -> ev.SessionCreated:
    return ev.SessionCreated(location="/work/project", project_root="/work/project", parent_id=parent)


async def parent_rewound_after_its_fork(path: Path) -> Path:
    """``ses_p`` forked at its head (seq 7) into ``ses_f``, which is forked in turn into ``ses_g``;
    then ``ses_p`` gains a context entry and a prompt and is rewound to before the fork point."""
    async with await Store.open(path) as store:
        await store.publish_many("ses_p", [created(), ev.InstructionsBaselined(baseline="base", applied={})])
        await store.publish_many("ses_p", answered("msg_u1", "msg_a1", "first"))
        assert await store.head_seq("ses_p") == FORK_AT
        await store.transact(lambda tx: tx.append("ses_f", forked("ses_p"), first_seq=FORK_AT + 1))
        await store.publish_many("ses_f", [ev.SessionForked(parent_id="ses_p", parent_seq=FORK_AT)])
        await store.publish_many("ses_p", [ev.ContextPut(key="api/later", value=1), *answered("msg_u2", "msg_a2", "2")])
        await store.publish_many("ses_f", answered("msg_fu", "msg_fa", "in the fork"))
        await store.transact(lambda tx: tx.append("ses_g", forked("ses_f"), first_seq=15))
        await store.publish_many("ses_g", [ev.SessionForked(parent_id="ses_f", parent_seq=14)])
        await store.publish_many("ses_p", [ev.SessionRewound(message_id="msg_u1", boundary_seq=4, conversation=True)])
        await store.publish_many("ses_f", [ev.SessionRewound(message_id="msg_fu", boundary_seq=11, conversation=True)])
    return path


async def test_a_fork_copies_its_parent_as_it_stood_when_the_fork_was_taken(pg_url: str, tmp_path: Path) -> None:
    source = await parent_rewound_after_its_fork(tmp_path / "src.db")
    expected = sqlite_snapshot(source)
    fork_messages = [row for row in expected["message"] if row[1] == "ses_f"]
    assert len(fork_messages) == 2  # the parent's first exchange, copied at the fork; its own was rewound

    there = await copy_log(str(source), pg_url, batch=2)
    assert [(s.session_id, s.state) for s in there.sessions] == [(s, "copied") for s in ("ses_p", "ses_f", "ses_g")]
    assert pg_rows(pg_url) == sqlite_rows(source)
    assert pg_snapshot(pg_url) == expected

    back = tmp_path / "back.db"
    returned = await copy_log(pg_url, str(back), batch=3)
    assert returned.problems == [] and sqlite_rows(back) == sqlite_rows(source)
    assert sqlite_snapshot(back) == expected


async def test_only_the_fork_asked_for_still_copies_its_parent_in_commit_order(tmp_path: Path) -> None:
    source = await parent_rewound_after_its_fork(tmp_path / "src.db")
    target = tmp_path / "dst.db"
    report = await copy_log(str(source), str(target), session_ids=["ses_g"])
    assert [s.session_id for s in report.sessions] == ["ses_p", "ses_f", "ses_g"]
    assert sqlite_snapshot(target) == sqlite_snapshot(source)
