"""The hooks around a session's tool calls (``pre_tool``, ``post_tool``) and its permission asks (``notification``).

A ``pre_tool`` block refuses the call as ``hook.blocked`` with the hook's reason (the tool does
not run); a ``post_tool`` block adds its reason to the result (the tool already ran). The user's
own ``!`` commands run no tool hooks. ``notification`` hooks run beside the wait for an answer,
never delaying the ask.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from agent_tui.core.host.hook_payload import tool_response
from agent_tui.core.host.hooks import HookSite, HookVerdict, run_hooks
from agent_tui.core.host.port import ToolInvocation
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.request.shell_text import SHELL_CALL_ID
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.hook_settings import HookEvent, HookSettings
from agent_tui.tools.asks import Asker, PermissionDecision, PermissionRequest
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.error_info import ErrorInfo

HOOK_BLOCKED = "hook.blocked"
PERMISSION_PROMPT = "permission_prompt"
"""A ``notification``'s type (Claude Code's name): the one kind agent-tui raises."""


class ToolHooks:
    """``pre_tool`` and ``post_tool`` around a session's tool calls (not the user's ``!`` commands)."""

    def __init__(self, publish: SessionPublisher, location: Path, project_root: Path) -> None:
        self._publish = publish
        self._location = location
        self._project_root = project_root

    def _site(self, call: ToolInvocation) -> HookSite:
        return HookSite(call.session_id, self._location, self._project_root, self._publish)

    async def before(self, settings: Settings, call: ToolInvocation) -> ToolOutcome | None:
        """A refusal when a ``pre_tool`` hook blocks the call (it then does not run), else None."""
        if call.call_id == SHELL_CALL_ID:
            return None
        verdict = await run_hooks(
            settings.hooks,
            HookEvent.PRE_TOOL,
            self._site(call),
            {"tool_input": call.input},
            tool=call.name,
            assistant_message_id=call.assistant_message_id,
            call_id=call.call_id,
            include=settings.shell.env.include,
        )
        if verdict.blocked is None:
            return None
        return ToolOutcome.failure(HOOK_BLOCKED, f"A PreToolUse hook blocked this call: {verdict.blocked}")

    async def after(self, settings: Settings, call: ToolInvocation, outcome: ToolOutcome) -> ToolOutcome:
        """The outcome, with a blocking ``post_tool`` hook's reason added for the model (the tool already ran)."""
        if call.call_id == SHELL_CALL_ID:
            return outcome
        hooks: Sequence[HookSettings] = settings.hooks
        if not outcome.ok:  # Claude Code runs PostToolUse only after a success: its scripts expect one
            hooks = [hook for hook in hooks if hook.format != "claude"]
        verdict = await run_hooks(
            hooks,
            HookEvent.POST_TOOL,
            self._site(call),
            {"tool_input": call.input, "tool_response": tool_response(outcome)},
            tool=call.name,
            assistant_message_id=call.assistant_message_id,
            call_id=call.call_id,
            include=settings.shell.env.include,
        )
        if verdict.blocked is None:
            return outcome
        note = f"PostToolUse hook: {verdict.blocked}"
        if outcome.output is not None:
            return replace(
                outcome, output=outcome.output.model_copy(update={"text": f"{outcome.output.text}\n\n{note}"})
            )
        error = outcome.error or ErrorInfo(type=HOOK_BLOCKED, message="")
        return replace(outcome, error=error.model_copy(update={"message": f"{error.message}\n\n{note}"}))


_notices: set[asyncio.Future[HookVerdict]] = set()


def notifying(asker: Asker, settings: Callable[[], Settings], site: HookSite) -> Asker:
    """``asker`` that also runs the ``notification`` hooks when it raises an ask, beside the wait for
    the answer (a hook never delays the ask); an interrupted ask stops them too."""

    async def ask(request: PermissionRequest) -> PermissionDecision:
        what = ", ".join(request.resources) or request.action
        notice = asyncio.ensure_future(
            run_hooks(
                settings().hooks,
                HookEvent.NOTIFICATION,
                site,
                {
                    "message": f"agent-tui needs your permission ({request.action}): {what}",
                    "title": "Permission",
                    "notification_type": PERMISSION_PROMPT,
                },
                subject=PERMISSION_PROMPT,
                assistant_message_id=request.assistant_message_id,
                call_id=request.call_id,
                include=settings().shell.env.include,
            )
        )
        _notices.add(notice)
        notice.add_done_callback(_settled)
        try:
            return await asker(request)
        except asyncio.CancelledError:
            notice.cancel()
            raise

    return ask


def _settled(notice: asyncio.Future[HookVerdict]) -> None:
    _notices.discard(notice)
    if not notice.cancelled():
        notice.exception()  # retrieved: a store error of a notice is not worth a traceback at exit


async def stop_notices() -> None:
    """Stop the ``notification`` hooks still running (their asks were answered): the runtime is closing."""
    running = list(_notices)
    for notice in running:
        notice.cancel()
    await asyncio.gather(*running, return_exceptions=True)
