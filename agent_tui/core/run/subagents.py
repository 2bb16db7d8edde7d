"""Subagents: the ``task`` tool's child sessions (DESIGN §15, "A subagent is a child session").

A ``task`` call creates a session of its own whose ``session.created`` names the
parent session and the call (``spawned_by``), admits the prompt in the same
transaction, and drains it through the same coordinator as any session: its own
log, inbox, step allowance, and the child agent's prompt, tools and permissions
(the runtime builds its tool host like any other). The parent's call settles with
the child's final answer and its session id.

- Interrupting the parent cancels the call's task: the child is interrupted and
  waited for before the cancellation goes on.
- A crash leaves both to the usual sweeps: the parent's call fails as interrupted
  when the parent drains again; the child stays a session of its own, swept when
  it is next drained. Nothing re-runs a child's work: the model decides.
- Nothing about a child lives only in memory but the coordinator's note of its
  parent, for ``active()``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from agent_tui.core.inbox.admission import admit_prompt
from agent_tui.core.inbox.agent_mentions import may_run_as_subagent, subagent_names
from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.log.records import MessageRecord, SessionRecord
from agent_tui.core.request.builder import needs_continuation
from agent_tui.core.settings.config import Settings
from agent_tui.core.store.writer import Tx
from agent_tui.tools.errors import PermissionDenied, ToolError
from agent_tui.tools.permissions import evaluate
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.task import TASK_ACTION, TaskInput, task_tool
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.tools.wildcard import wildcard_match
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import Delivery, Effect, ErrorType, InterruptReason
from agent_tui.vocab.tool_output import ToolOutput

SUBAGENT_FAILED = "subagent.failed"
"""The child ended without an answer: its run failed, was interrupted, or used up its steps."""


def spawns_subagents(settings: Settings, session: SessionRecord) -> bool:
    """Whether the session is offered ``task``: a top-level one is; a child only when its agent's
    rules allow ``task`` by name (no recursion unless configured)."""
    if not subagent_names(settings):
        return False
    if session.spawned_by is None:
        return True
    rules = settings.permission_rules(session.agent or settings.agent)
    return any(rule.action != "*" and wildcard_match(rule.action, TASK_ACTION) for rule in rules) and any(
        evaluate(rules, TASK_ACTION, name).effect is Effect.ALLOW for name in subagent_names(settings)
    )


def final_answer(messages: list[MessageRecord]) -> str:
    """The text of the newest assistant message that has some (empty when none has)."""
    for message in reversed(messages):
        if message.kind == "user":
            return ""
        if message.kind == "assistant":
            text = "\n".join(p["text"] for p in message.data.get("parts", []) if p["type"] == "text" and p["text"])
            if text.strip():
                return text.strip()
    return ""


class SubagentReads(Protocol):
    async def session(self, session_id: str) -> SessionRecord | None: ...

    async def messages(
        self, session_id: str, after: int | None = None, before: int | None = None, limit: int | None = None
    ) -> list[MessageRecord]: ...

    async def transact(self, job: Callable[[Tx], Any]) -> Any: ...


class ChildExecutor(Protocol):
    async def run(self, session_id: str, *, parent: str | None = None) -> ErrorInfo | None: ...

    async def interrupt(self, session_id: str, reason: InterruptReason | str = InterruptReason.USER) -> None: ...


class Subagents:
    """Runs ``task`` calls as child sessions; the runtime registers :meth:`tool` per session."""

    def __init__(
        self,
        store: SubagentReads,
        executor: ChildExecutor,
        settings_for: Callable[[str], Awaitable[Settings]],
    ) -> None:
        self._store = store
        self._executor = executor
        self._settings_for = settings_for

    def tool(self, settings: Settings) -> Tool:
        agents = [(name, _about(settings, name)) for name in subagent_names(settings)]
        return task_tool(self.run, agents)

    async def run(self, scope: ToolScope, params: TaskInput) -> ToolResult:
        parent = await self._store.session(scope.session_id)
        if parent is None:  # not expected: the parent is the session running this call
            raise ToolError(f"unknown session {scope.session_id}")
        settings = await self._settings_for(parent.location)
        self._check(settings, parent, params.agent)
        child_id = await self._create(parent, settings, scope, params)
        error = await self._drain(child_id, parent.id)
        messages = await self._store.messages(child_id)
        answer = final_answer(messages)
        ending = f"session_id: {child_id}"
        meta = {"session_id": child_id, "agent": params.agent}
        if error is None and needs_continuation(messages):
            steps = settings.agent_settings(params.agent).steps
            error = ErrorInfo(type=SUBAGENT_FAILED, message=f"it used up its {steps} steps without a final answer")
        if error is not None or not answer:
            why = error.message if error is not None else "it ended without an answer"
            had = f"\nWhat it had so far:\n{answer}" if answer else ""
            raise ToolError(f"The {params.agent} subagent failed: {why}{had}\n\n{ending}", SUBAGENT_FAILED, meta)
        return ToolResult(ToolOutput(text=f"{answer}\n\n{ending}", data=meta), result_meta=meta)

    def _check(self, settings: Settings, parent: SessionRecord, agent: str) -> None:
        if not may_run_as_subagent(settings, agent):
            names = ", ".join(subagent_names(settings)) or "none"
            raise ToolError(f"Unknown subagent {agent!r}. Subagents: {names}.", ErrorType.TOOL_INPUT)
        verdict = evaluate(settings.permission_rules(parent.agent or settings.agent), TASK_ACTION, agent)
        if verdict.effect is Effect.DENY:
            raise PermissionDenied(TASK_ACTION, agent, verdict.rule.pattern)

    async def _create(self, parent: SessionRecord, settings: Settings, scope: ToolScope, params: TaskInput) -> str:
        """The child's ``session.created`` and its prompt, in one transaction."""
        child_id = ids.session_id()
        created = ev.SessionCreated(
            location=parent.location,
            project_root=parent.project_root,
            title=params.description,
            agent=params.agent,
            model=settings.agent_settings(params.agent).model or parent.model,
            spawned_by=ev.SpawnedBy(
                session_id=parent.id, assistant_message_id=scope.assistant_message_id, call_id=scope.call_id
            ),
        )
        prompt = ev.text_prompt(params.prompt)

        def job(tx: Tx) -> None:
            tx.append(child_id, created)
            admit_prompt(tx, child_id, ids.message_id(), prompt, Delivery.STEER)

        await self._store.transact(job)
        return child_id

    async def _drain(self, child_id: str, parent_id: str) -> ErrorInfo | None:
        """Run the child to its end; cancelled (the parent interrupted), interrupt it and wait for it."""
        try:
            return await self._executor.run(child_id, parent=parent_id)
        except asyncio.CancelledError:
            stopping = asyncio.ensure_future(self._executor.interrupt(child_id))
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(stopping)
            raise


def _about(settings: Settings, name: str) -> str:
    """An agent's description for the model (agents may not have one yet)."""
    about = getattr(settings.agent_settings(name), "description", None)
    return about if isinstance(about, str) else ""
