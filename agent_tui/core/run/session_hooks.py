"""The runner's hook points: ``session_start``, ``user_prompt`` and ``stop`` (tool hooks are the tool host's).

- ``session_start``: once per session and process, at its first drain, before any promotion; its
  stdout reaches the model as a system reminder.
- ``user_prompt``: for each prompt about to be promoted; exit 0's stdout becomes a system reminder
  right after the prompt, exit 2 withdraws the prompt (never sent; the transcript shows the reason).
- ``stop``: when the agent ends a turn with its answer; exit 2 (Claude Code's "block stopping")
  feeds stderr to the model and the turn goes on, while the agent's step allowance lasts
  (``stop_hook_active`` tells the hook it is such a continuation).

A subagent's session (``spawned_by``) runs none of these, as in Claude Code: its prompt is the
parent's tool call, and its answer is the parent's tool result (tool hooks still run in it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_tui.core.host.hooks import HookSite, run_hooks
from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.log.records import InboxRecord, SessionRecord
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.hook_settings import HookEvent


def _site(session: SessionRecord, publish: SessionPublisher) -> HookSite:
    return HookSite(session.id, Path(session.location), Path(session.project_root), publish)


class SessionHooks:
    def __init__(self) -> None:
        self._started: set[str] = set()

    async def session_start(
        self, session: SessionRecord, settings: Settings, publish: SessionPublisher, resumed: bool
    ) -> None:
        if session.id in self._started or session.spawned_by is not None:
            return
        self._started.add(session.id)
        source = "resume" if resumed else "startup"
        site = _site(session, publish)
        await run_hooks(
            settings.hooks,
            HookEvent.SESSION_START,
            site,
            {"source": source},
            subject=source,
            include=settings.shell.env.include,
        )

    async def promote(
        self, rows: Sequence[InboxRecord], session: SessionRecord, settings: Settings, publish: SessionPublisher
    ) -> int:
        """Promote the prompts the ``user_prompt`` hooks let through, each followed by its hooks' runs (so
        their context follows the prompt, and a rewind to it takes the context back too), and withdraw
        the others; in one transaction. Returns how many were promoted."""
        events: list[ev.DurableEvent] = []
        promoted = 0
        for row in rows:
            start = len(events)
            blocked = False
            if row.kind == "prompt" and session.spawned_by is None:
                prompt = ev.prompt_text(row.prompt or [])
                site = _site(session, publish)
                fields = {"prompt": prompt}
                verdict = await run_hooks(
                    settings.hooks, HookEvent.USER_PROMPT, site, fields, held=events, include=settings.shell.env.include
                )
                blocked = verdict.blocked is not None
            if blocked:
                events.append(ev.PromptWithdrawn(input_id=row.id))
            else:
                events.insert(start, ev.PromptPromoted(input_id=row.id))
                promoted += 1
        await publish.many(events)
        return promoted

    async def stop_blocked(
        self, session: SessionRecord, settings: Settings, publish: SessionPublisher, active: bool
    ) -> bool:
        """Run the ``stop`` hooks; True when one blocks stopping (its reason is now in the history)."""
        if session.spawned_by is not None:
            return False
        verdict = await run_hooks(
            settings.hooks,
            HookEvent.STOP,
            _site(session, publish),
            {"stop_hook_active": active},
            include=settings.shell.env.include,
        )
        return verdict.blocked is not None
