"""What the person does to a session as a whole: rewind, fork, rename, export, pause, compact, pick a model.

``SessionFeed`` is the path from the facade to the screen; ``SessionActions``
is the way back for the commands that act on the session on screen. Each
action asks the facade (``services.ready()``, or ``services.ready_to_run()`` when it
makes the session run) and answers with one notice; a refusal is the facade's
one line. ``AgentApp`` keeps the ``action_*`` names the command registry runs,
each one line into here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.tui.rewind_choice import FORK, RewindChoice
from agent_tui.tui.screens.confirm import ConfirmScreen
from agent_tui.tui.screens.rename import RenameScreen
from agent_tui.tui.screens.rewind import RewindScreen
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from textual.screen import Screen

    from agent_tui.tui.widgets.session_view import SessionView


class ActionsHost(Protocol):
    """What the actions need from the app."""

    services: TuiServices

    @property
    def view(self) -> SessionView: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: str = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = None) -> Any: ...

    def run_worker(
        self,
        work: Any,
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Any: ...

    async def open_session(self, session_id: str | None) -> None: ...


class SessionActions:
    def __init__(self, host: ActionsHost) -> None:
        self.host = host

    @property
    def services(self) -> TuiServices:
        return self.host.services

    def notify(self, message: str, severity: str = "information") -> None:
        self.host.notify(message, severity=severity)

    # ------------------------------------------------------------------ rewind and fork

    async def rewind(self) -> None:
        """The rewind list; a running session is interrupted first, once the person says so."""
        view = self.host.view
        if view.session_id is None:
            self.notify("nothing to rewind yet")
            return
        if not view.is_active:
            self._open_rewind()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.host.run_worker(self._interrupt_then_rewind(), group="rewind")

        self.host.push_screen(ConfirmScreen("The session is running. Interrupt it and rewind?"), answered)

    async def _interrupt_then_rewind(self) -> None:
        await self.host.view.interrupt_and_wait()
        self._open_rewind()

    def _open_rewind(self) -> None:
        view = self.host.view
        session_id = view.session_id
        assert session_id is not None  # checked by ``rewind``; a session on screen stays one

        def chosen(choice: RewindChoice | None) -> None:
            if choice is None:
                return
            if choice.action == FORK:
                self.host.run_worker(self.fork_at(choice.message_id, choice.text), group="rewind")
            else:
                self.host.run_worker(view.rewind(choice), group="rewind")

        self.host.push_screen(RewindScreen(self.services, session_id, can_fork=True), chosen)

    async def fork(self) -> None:
        if self.host.view.session_id is None:
            self.notify("nothing to fork yet")
            return
        await self.fork_at(None, "")

    async def fork_at(self, at: str | None, prompt: str) -> None:
        """Open a fork of the session on screen (from just before the prompt ``at``, or all of it)."""
        parent = self.host.view.session_id
        assert parent is not None
        try:
            child = await (await self.services.ready()).fork(parent, at)
        except Exception as error:  # the facade's one-line reason; nothing was created
            self.notify(f"fork failed: {error}", severity="error")
            return
        await self.host.open_session(child.id)
        if prompt:
            self.host.view.query_one(PromptInput).load_text(prompt)
        self.notify(f"forked into a new session; the parent stays as it was ({parent})")

    # ------------------------------------------------------------------ the session as a whole

    async def export(self) -> None:
        """/export: the session as Markdown, written next to its files; the notice says where."""
        sid = self.host.view.session_id
        if sid is None:
            self.notify("nothing to export yet")
            return
        sessions = await self.services.ready()
        try:
            record = await sessions.get(sid)
            text = await sessions.transfer.export(sid, "markdown")
            path = Path(record.location) / f"agent-tui-{sid}.md"
            await asyncio.to_thread(path.write_text, text, encoding="utf-8")
        except Exception as error:  # an unwritable directory, a store error: one line
            self.notify(f"export failed: {error}", severity="error")
            return
        self.notify(f"exported to {path}")

    async def rename(self, title: str = "") -> None:
        """/rename TITLE; from the palette (no title) a small editor asks for it."""
        sid = self.host.view.session_id
        if sid is None:
            self.notify("nothing to rename yet: send a first prompt")
            return
        if not title.strip():
            current = (await (await self.services.ready()).get(sid)).title or ""

            def entered(text: str | None) -> None:
                if text:
                    self.host.run_worker(self.rename(text), group="rename")

            self.host.push_screen(RenameScreen(current), entered)
            return
        try:
            record = await (await self.services.ready()).rename(sid, title)
        except Exception as error:  # an empty or too long title: the facade says which
            self.notify(f"rename failed: {error}", severity="error")
            return
        self.notify(f"renamed: {record.title}")

    async def pause_queue(self) -> None:
        view = self.host.view
        if view.session_id is None:
            self.notify("nothing is queued yet")
            return
        paused = not view.transcript.facts.queue_paused
        await (await self.services.ready()).pause_queue(view.session_id, paused)
        self.notify("queue paused: queued input waits (alt+p resumes)" if paused else "queue resumed")

    async def compact(self) -> None:
        view = self.host.view
        if view.session_id is None:
            self.notify("nothing to compact yet")
        else:
            await (await self.services.ready_to_run()).compact(view.session_id)

    async def select_agent(self, agent: str) -> None:
        self.services.agent = agent
        view = self.host.view
        if view.session_id is not None:
            await (await self.services.ready()).select_agent(view.session_id, agent)

    def agent_names(self) -> list[str]:
        """The primary agents (the built-in two until the settings are read)."""
        from agent_tui.core.api import DEFAULT_AGENT, PLAN_AGENT

        settings = self.services.settings
        return settings.primary_agents() if settings is not None else [DEFAULT_AGENT, PLAN_AGENT]

    async def choose_agent(self, agent: str) -> None:
        """``/agent NAME`` and the cycle key: a primary agent, from the session's next step."""
        settings = self.services.settings
        problem = settings.agent_choice_error(agent) if settings is not None else None
        if problem is None and settings is None and agent not in self.agent_names():
            problem = f"unknown agent {agent!r}; the primary agents: {', '.join(self.agent_names())}"
        if problem is not None:
            self.notify(problem, severity="error")
            return
        await self.select_agent(agent)
        self.host.view.paint_chrome()
        running = self.host.view.is_active
        self.notify(f"agent: {agent}" + (" (from the next step)" if running else ""), severity="information")

    async def cycle_agent(self) -> None:
        names = self.agent_names()
        view = self.host.view
        current = (view.transcript.facts.agent if view.session_id is not None else None) or self.services.agent
        following = names[(names.index(current) + 1) % len(names)] if current in names else names[0]
        await self.choose_agent(following)

    async def cycle_approval(self) -> None:
        """The next approval mode (ask → auto-edit → auto → ask; full-auto only from the command line
        or the config) for the session on screen, from its next permission check, and for new sessions."""
        from agent_tui.vocab.kinds import ApprovalMode, next_approval

        view = self.host.view
        following = next_approval(ApprovalMode(view.approval_mode()))
        self.services.approval = following
        if view.session_id is not None:
            (await self.services.ready()).choose_approval(view.session_id, following)
        view.paint_chrome()
        self.notify(f"approval: {following}", severity="information")

    async def select_model(self, model: str) -> None:
        view = self.host.view
        self.services.model = model
        if self.services.learn_model is not None:  # its context window, for "context left"
            self.host.run_worker(partial(self.services.learn_model, model), thread=True, group="learn")
        waiting = bool(view.transcript.pending_inputs) and not view.is_active
        if view.session_id is not None:
            await (await self.services.ready()).select_model(view.session_id, model)
            if waiting:  # e.g. the first prompt failed for want of a model: it runs now
                await (await self.services.ready_to_run()).wake(view.session_id)
        self.notify(f"model: {model}" + (" (sending what is pending)" if waiting else " (from the next step)"))
        view.notice = None
        await view.feed.flush()
