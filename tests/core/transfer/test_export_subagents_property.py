"""Property: any tree of subagent sessions survives export and import with its shape, its words, new ids.

The sessions are written as the runner would log them (events straight into a real SQLite file), so
many shapes are cheap: each session answers one prompt with a step whose ``task`` calls started its
children, their results naming the children as the ``task`` tool does.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.sessions import Sessions
from agent_tui.core.store.store import Store
from agent_tui.vocab.tool_output import ToolOutput

Shape = list[Any]  # a session: the list of its children's shapes

shapes = st.recursive(st.just([]), lambda kids: st.lists(kids, max_size=3), max_leaves=6)
words = st.text(min_size=1, max_size=12)


async def _write(store: Store, shape: Shape, said: list[str], where: str, link: ev.SpawnedBy | None = None) -> str:
    """A session of ``shape`` (its prompt and answer from ``said``, consumed in order); its id."""
    sid, prompt, amid = ids.session_id(), ids.message_id(), ids.message_id()
    text = said.pop(0) if said else "x"
    for event in [
        ev.SessionCreated(location=where, project_root=where, title=f"t {text}", spawned_by=link),
        ev.PromptAdmitted(input_id=prompt, prompt=ev.text_prompt(f"do {text}")),
        ev.PromptPromoted(input_id=prompt),
        ev.StepStarted(assistant_message_id=amid, agent="build", model="m"),
        ev.TextStarted(assistant_message_id=amid, ordinal=0),
        ev.TextEnded(assistant_message_id=amid, ordinal=0, text=f"answer {text}"),
        *[
            ev.ToolCalled(assistant_message_id=amid, call_id=f"call_{i}", name="task", input={"prompt": str(i)})
            for i in range(len(shape))
        ],
    ]:
        await store.publish(sid, event)
    for i, kid in enumerate(shape):
        child = await _write(
            store, kid, said, where, ev.SpawnedBy(session_id=sid, assistant_message_id=amid, call_id=f"call_{i}")
        )
        output = ToolOutput(text=f"done\n\nsession_id: {child}", data={"session_id": child})
        await store.publish(
            sid,
            ev.ToolSucceeded(
                assistant_message_id=amid, call_id=f"call_{i}", output=output, result_meta={"session_id": child}
            ),
        )
    await store.publish(sid, ev.StepEnded(assistant_message_id=amid, finish="stop"))
    return sid


async def _read(sessions: Sessions, sid: str) -> tuple[Any, list[str], set[str]]:
    """(shape with each session's words, every id in it) of the tree under ``sid``."""
    messages = await sessions.messages(sid)
    words = [m.data["prompt"][0]["text"] if m.kind == "user" else m.data["parts"][0]["text"] for m in messages]
    record = await sessions.get(sid)
    found = {sid, *(m.id for m in messages)}
    kids, links = [], []
    calls = {c.call_id: c for c in await sessions._store.tool_calls(sid)}
    for child in await sessions.children(sid):
        shape, _, child_ids = await _read(sessions, child.id)
        kids.append(shape)
        found |= child_ids
        call = calls[child.spawned_call_id or ""]
        assert child.spawned_message_id in {m.id for m in messages}
        assert call.output is not None and call.output["text"].endswith(child.id), "the result names this child"
        assert call.output["data"] == call.result_meta == {"session_id": child.id}
        links.append(child.spawned_call_id)
    return ((record.title, words, links), kids), words, found


@settings(max_examples=20, deadline=None)
@given(shape=shapes, said=st.lists(words, max_size=8))
def test_any_tree_of_subagents_round_trips(shape: Shape, said: list[str]) -> None:
    async def check() -> None:
        with tempfile.TemporaryDirectory() as folder:
            store = await Store.open(Path(folder) / "store.db")
            try:
                sessions = Sessions(store)
                root = await _write(store, shape, list(said), folder)
                before, _, old_ids = await _read(sessions, root)
                copy = await sessions.transfer.import_session(await sessions.transfer.export(root), location=folder)
                after, _, new_ids = await _read(sessions, copy.id)
                assert after == before
                assert not old_ids & new_ids, "the copy shares no session or message id with the original"
                assert copy.spawned_by is None
            finally:
                await store.close()

    asyncio.run(check())


async def test_line_separators_inside_a_record_stay_inside_it(store: Store, tmp_path: Path) -> None:
    """The export writes U+2028, U+0085 as they are; import splits records at "\\n" only."""
    sessions = Sessions(store)
    root = await _write(store, [[]], ["one\u2028two\x85three", "kid\u2029"], str(tmp_path))
    before, words, _ = await _read(sessions, root)
    assert words == ["do one\u2028two\x85three", "answer one\u2028two\x85three"]
    copy = await sessions.transfer.import_session(await sessions.transfer.export(root), location=tmp_path)
    assert (await _read(sessions, copy.id))[0] == before
