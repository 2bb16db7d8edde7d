"""Running the configured hooks at one point of a session, and what their exits mean.

Exit 0 goes on (its stdout is context for the model at ``session_start`` and ``user_prompt``);
exit 2 blocks, with stderr as the reason (``HookVerdict.blocked``: the caller decides what a
block means at its point: ``run/session_hooks.py``, ``host/tool_hooks.py``); anything else, a
hook that cannot start, or a timeout is a warning, and the session goes on. Matching hooks run
one after another, in configuration order (user's, then the project's); the first block stops
the rest. Each run is one durable ``hook.ran`` event; a cancel (an interrupt) kills the running
hook's process group and records it ``interrupted``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.host.hook_output import read_output
from agent_tui.core.host.hook_payload import CLAUDE_EVENT_NAMES, matches, payload
from agent_tui.core.host.hook_process import HookExit, run_hook_command
from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.settings.hook_settings import HookEvent, HookSettings
from agent_tui.tools.shell_env import command_environment

CONTEXT_EVENTS = frozenset({HookEvent.SESSION_START, HookEvent.USER_PROMPT})
"""The events whose hooks' stdout (exit 0) the model reads."""


@dataclass(frozen=True)
class HookSite:
    """Where hooks run: the session, its working directory and project root, its log."""

    session_id: str
    location: Path
    project_root: Path
    publish: SessionPublisher


@dataclass(frozen=True)
class HookVerdict:
    blocked: str | None = None
    """The reason of the first hook that exited 2; None: go on."""
    context: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Where:
    tool_name: str | None
    assistant_message_id: str | None
    call_id: str | None

    def ran(
        self,
        event: HookEvent,
        hook: HookSettings,
        outcome: ev.HookOutcome,
        run: HookExit | None = None,
        message: str | None = None,
        context: str | None = None,
    ) -> ev.HookRan:
        return ev.HookRan(
            hook_event=event.value,
            command=hook.command,
            outcome=outcome,
            exit_code=None if run is None else run.code,
            message=message,
            context=context,
            message_id=None if context is None else ids.message_id(),
            tool_name=self.tool_name,
            assistant_message_id=self.assistant_message_id,
            call_id=self.call_id,
            duration_ms=0 if run is None else run.duration_ms,
        )


def _environment(site: HookSite, include: Sequence[str]) -> dict[str, str]:
    """What a hook starts with: what a ``bash`` command gets (this process's environment without its
    provider keys and other secrets, but those ``[shell] env include`` names), and where it runs."""
    root = str(site.project_root)
    return {
        **command_environment(include),
        "CLAUDE_PROJECT_DIR": root,
        "AGENT_TUI_PROJECT_DIR": root,
        "AGENT_TUI_SESSION": site.session_id,
    }


def _judged(event: HookEvent, hook: HookSettings, run: HookExit) -> tuple[ev.HookOutcome, str | None, str | None]:
    """``(outcome, message, context)`` of one run."""
    if run.failed_to_start is not None:
        return "warning", f"could not start: {run.failed_to_start}", None
    if run.timed_out:
        return "timeout", f"timed out after {hook.timeout:g} s; its process group was stopped", None
    if run.code == 0:
        answer = read_output(run.stdout)
        if answer is None:
            said = run.stdout.strip()
            return "ok", None, (said or None) if event in CONTEXT_EVENTS else None
        if answer.blocked is not None:
            return "blocked", answer.blocked, None
        return "ok", answer.message, answer.context if event in CONTEXT_EVENTS else None
    if run.code == 2:
        return "blocked", run.stderr.strip() or "blocked by a hook (it gave no reason on stderr)", None
    said = run.stderr.strip()
    return "warning", f"exited with {run.code}" + (f": {said}" if said else ""), None


async def run_hooks(
    hooks: Sequence[HookSettings],
    event: HookEvent,
    site: HookSite,
    fields: Mapping[str, Any] | None = None,
    *,
    tool: str | None = None,
    subject: str | None = None,
    assistant_message_id: str | None = None,
    call_id: str | None = None,
    held: list[ev.DurableEvent] | None = None,
    include: Sequence[str] = (),
) -> HookVerdict:
    """Run the hooks for ``event`` (and ``tool``) in order; each one's run becomes a ``hook.ran`` event.

    A matcher is matched against the tool, else against ``subject`` (as Claude Code does: a
    ``SessionStart``'s source, a ``Notification``'s type); None matches every matcher. With
    ``held`` the events are added to it for the caller to publish with its own (a prompt's
    promotion first, so its hooks' context follows it); a cancel publishes what is held. ``include``:
    the secrets the hooks may see (``[shell] env include``), as for ``bash``."""
    chosen = [hook for hook in hooks if hook.event == event and matches(hook, tool or subject)]
    if not chosen:
        return HookVerdict()
    base: dict[str, Any] = {"session_id": site.session_id, "cwd": str(site.location), **(fields or {})}
    if tool is not None:
        base["tool_name"] = tool
    where = _Where(tool, assistant_message_id, call_id)
    env = _environment(site, include)
    contexts: list[str] = []
    for hook in chosen:
        stdin = json.dumps(payload(hook, event, base, site.location), ensure_ascii=False, default=str)
        try:
            run = await run_hook_command(hook.command, stdin, site.location, hook.timeout, env)
        except asyncio.CancelledError:
            await site.publish.many([*(held or []), where.ran(event, hook, "interrupted")])
            raise
        outcome, message, context = _judged(event, hook, run)
        if outcome == "blocked" and event == HookEvent.STOP:
            context = f"Stop hook feedback (you were about to stop; go on):\n{message}"
        elif context is not None:
            context = f"{CLAUDE_EVENT_NAMES[event]} hook additional context:\n{context}"
        ran = where.ran(event, hook, outcome, run, message, context)
        if held is None:
            await site.publish(ran)
        else:
            held.append(ran)
        if context is not None:
            contexts.append(context)
        if outcome == "blocked":
            return HookVerdict(blocked=message, context=contexts)
    return HookVerdict(context=contexts)
