"""How what is typed into the prompt reaches the session: a prompt, or a ``!command`` for its bash tool.

Prompts leave one at a time in the order typed, and the first one creates the
session (so opening the app never leaves an empty session behind). Whatever is
not sent says why in one notice and comes back into an empty prompt, to be sent
again. The ``SessionView`` runs each send as one of its ``send`` workers.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.activity import ActivityLine
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.vocab.kinds import ApprovalMode, Delivery

if TYPE_CHECKING:
    from agent_tui.core.api import SessionRecord
    from agent_tui.tui.port import SessionsPort
    from agent_tui.tui.widgets.session_view import SessionView


def _session_id(created: SessionRecord | str) -> str:
    return created if isinstance(created, str) else str(created.id)


class PromptSender:
    def __init__(self, services: TuiServices, view: SessionView) -> None:
        self.services = services
        self.view = view
        self._sending = asyncio.Lock()  # prompts leave in the order typed; the first one creates the session
        self._asked: tuple[str, str] | None = None  # (prompt, folder) whose external_directory ask was shown

    async def run_shell(self, command: str, text: str) -> None:
        """``!command``: the session's bash tool runs it (no model step); the model sees it next turn."""
        if not command:
            self.keep(text, "! needs a command: !ls -la", "error")
            return
        async with self._sending:
            try:
                sessions = await self.services.ready_to_run()
                session_id = self.view.session_id or await self._new_session(sessions)
                await sessions.shell(session_id, command)
            except Exception as error:  # the facade's one-line reason
                self.keep(text, f"not run: {error}", "error")

    async def send(self, text: str, delivery: Delivery) -> None:
        view = self.view
        if not view.is_active and not view.transcript.facts.queue_paused:  # it will run: the clock starts
            view.query_one(ActivityLine).begin()
        async with self._sending:
            await self._send(text, delivery)

    async def _send(self, text: str, delivery: Delivery) -> None:
        from agent_tui.core.api import NeedsApproval

        try:
            sessions = await self.services.ready_to_run()
            parts = await self._parts(text)  # before the session exists: a bad mention sends nothing
            if self.services.runner_error:
                self.view.app.notify(self.services.runner_error, severity="error")
            session_id = self.view.session_id or await self._new_session(sessions)
            await sessions.prompt(session_id, parts, delivery=delivery.value)
        except NeedsApproval as asked:  # the user's answer is sending the same prompt again
            self._asked = (text, asked.directory)
            self.keep(text, f"{asked} — press Enter again to attach it once", "warning")
        except Exception as error:  # the facade's one-line reason, and the text stays recallable
            self.keep(text, f"not sent: {error}", "error")

    async def _new_session(self, sessions: SessionsPort) -> str:
        """The session the first prompt (or ``!`` command) goes to, in the model, agent and
        approval mode the status bar shows."""
        created = await sessions.create(
            location=self.services.location, model=self.services.model, agent=self.services.agent
        )
        session_id = _session_id(created)
        sessions.choose_approval(session_id, ApprovalMode(self.services.approval))
        self.view.feed.adopt(session_id)
        return session_id

    def keep(self, text: str, why: str, severity: str) -> None:
        """Say why ``text`` was not sent, and put it back into the prompt unless something new was typed."""
        view = self.view
        view.app.notify(why, severity=severity)  # type: ignore[arg-type]
        if not view.is_active:  # not sent: nothing runs
            view.query_one(ActivityLine).cancel()
        prompt = view.query_one(PromptInput)
        if not prompt.text:
            prompt.load_text(text)
            prompt.move_cursor(prompt.document.end)

    async def _parts(self, text: str) -> list:
        """The durable prompt: the text, then every file, folder and image it mentions (a subagent's
        mention: the guidance to hand it the work)."""
        from agent_tui.core.api import events as ev  # once the core is open: the models' module imports pydantic

        if "@" not in text:
            return ev.text_prompt(text)
        from agent_tui.core.api import attach_policy, build_prompt, vision_check

        approved = [self._asked[1]] if self._asked and self._asked[0] == text else []
        policy = attach_policy(
            self.services.settings, self.services.agent, approved=approved, location=self.services.location
        )
        reader = getattr(self.services.mcp, "mcp_reader", None)  # the runtime, once it is up
        return await build_prompt(
            text,
            self.services.location,
            policy=policy,
            vision=vision_check(self.services.settings, self.services.model),
            resources=reader(self.services.location, self.services.agent) if reader is not None else None,
        )
