"""Sessions in and out as files, for the front ends: one object, the facade's ``transfer``.

The facade holds one ``SessionTransfer`` (``Sessions.transfer``): ``export``
writes a session and its subagents' sessions as JSONL or Markdown,
``import_session`` reads such an export back as new sessions, and
``import_foreign`` reads another agent's session file. The room sits below the
store, so what of the store it uses is a Protocol (``TransferStore``) the
store meets; the format modules load on first use, not with the facade.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from agent_tui.core.errors import InvalidRequest
from agent_tui.core.log import events as ev
from agent_tui.core.log.records import MessageRecord, SessionRecord, SessionSummary, ToolCallRecord
from agent_tui.core.settings import paths

if TYPE_CHECKING:
    from agent_tui.core.transfer.export_jsonl import Transcript
    from agent_tui.core.transfer.foreign.write import ImportOutcome, Transaction

T = TypeVar("T")


class TransferStore(Protocol):
    """What of the store an export or an import reads and writes."""

    async def children(self, session_ids: Sequence[str]) -> list[SessionSummary]: ...

    async def messages(self, session_id: str) -> list[MessageRecord]: ...

    async def tool_calls(self, session_id: str) -> list[ToolCallRecord]: ...

    async def events_of_type(self, session_id: str, types: Sequence[str]) -> list[ev.StoredEvent]: ...

    async def transact(self, job: Callable[[Transaction], T]) -> T: ...


class SessionTransfer:
    """Export a session (and its subagents' sessions); import an export or another agent's session."""

    def __init__(self, store: TransferStore, get: Callable[[str], Awaitable[SessionRecord]]) -> None:
        self._store = store
        self._session = get  # the facade's ``get``: the session's row, or ``UnknownSession``

    async def export(self, session_id: str, format: str = "jsonl") -> str:
        """The session as reference 002's JSONL records, or as a Markdown transcript; either way its
        subagents' sessions (and theirs) follow its own."""
        from agent_tui.core.transfer import export_jsonl, export_markdown

        if format not in ("jsonl", "markdown"):
            raise InvalidRequest(f"export format must be jsonl or markdown, not {format!r}")
        session = await self._session(session_id)
        messages = await self._store.messages(session_id)
        calls = await self._store.tool_calls(session_id)
        if format == "markdown":  # the subagents' transcripts follow, each after a rule
            children = [await self.export(child.id, format) for child in await self._store.children([session_id])]
            return "\n---\n\n".join([export_markdown.markdown(session, messages, calls), *children])
        subagents = [
            await self._transcript(child, await self._store.messages(child.id), await self._store.tool_calls(child.id))
            for child in await self._descendants(session_id)
        ]
        return "".join(export_jsonl.lines(await self._transcript(session, messages, calls), subagents))

    async def import_session(self, text: str, *, location: str | Path, source: str = "import") -> SessionRecord:
        """A new session from a JSONL export, with its subagents' sessions as new children of it (one
        transaction); returns the parent. A file that is not an export changes nothing."""
        from agent_tui.core.transfer import import_jsonl, import_tree

        rows = import_jsonl.parse(text, source)
        where, root = await _place(location)
        sessions = import_tree.sessions_from(rows, str(where), str(root), source)

        def job(tx: Transaction) -> None:
            for session_id, events in sessions:
                for event in events:
                    tx.append(session_id, event)

        await self._store.transact(job)
        return await self._session(sessions[0][0])

    async def import_foreign(
        self, agent: str, text: str, *, path: str, location: str | Path | None = None, again: bool = False
    ) -> ImportOutcome:
        """A new session from another agent's session file (``agent``: a ``--from`` name), in the directory
        the file names (or ``location``); a session imported before is found, not written twice, unless
        ``again``. A file this build cannot read changes nothing."""
        from agent_tui.core.transfer.foreign import formats, write

        imported = await asyncio.to_thread(formats.reader(agent), text, path)  # may read files beside it
        where, root = await _place(location or imported.location)
        session_id, job = write.job(imported, where, root, again=again)
        earlier = await self._store.transact(job)
        return write.ImportOutcome(earlier or session_id, earlier is None, imported)

    async def _transcript(
        self, of: SessionRecord, messages: list[MessageRecord], calls: list[ToolCallRecord]
    ) -> Transcript:
        from agent_tui.core.transfer import export_jsonl

        spent = await self._store.events_of_type(of.id, export_jsonl.SPEND_TYPES)
        return export_jsonl.Transcript(of, messages, calls, export_jsonl.compaction_spend(spent))

    async def _descendants(self, session_id: str) -> list[SessionRecord]:
        """The subagents' sessions under this one, depth first (a child, its children, the next child)."""
        found: list[SessionRecord] = []
        for child in await self._store.children([session_id]):
            found += [child, *await self._descendants(child.id)]
        return found


async def _place(location: str | Path) -> tuple[Path, Path]:
    """The resolved directory the new sessions live in, and its project root (both off the event loop)."""
    where = await asyncio.to_thread(lambda: Path(location).resolve())
    return where, await asyncio.to_thread(paths.project_root, where)
