"""What MCP servers bring to the person at the screen: their states (the status bar's count, one
notice when one fails, says why it skips a tool, or logs an error), a server's question during a tool call
(elicitation: its dialog, the answer handed back to the waiting call), a server's request to use
the model (sampling: its approval panel), and a server's prompt run as a slash command (missing
arguments asked for, the expansion sent as a prompt).

``AgentApp`` keeps the ``action_run_mcp_prompt`` name the command registry runs, one line into
here, as it does for ``SessionActions`` and ``Pages``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.tui.mcp_prompts import prompts_here
from agent_tui.tui.mcp_view import McpServerState, error_notices, failure_notice, new_notices
from agent_tui.vocab.kinds import Delivery

if TYPE_CHECKING:
    from textual.screen import Screen

    from agent_tui.tui.app import AgentApp


class McpInteractions:
    """``watch`` once the core is open; ``unwatch`` when the app goes."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self._unwatch: list[Callable[[], None]] = []
        self._told: set[tuple[str, str, str]] = set()  # (location, server, notice) shown once each

    async def watch(self) -> None:
        """Once the core is up: from now on MCP servers' questions wait for the user (without a watcher
        they are declined), and each change of a server's state repaints the status bar."""
        services = self.app.services
        await services.runnable.wait()
        sessions = services.sessions
        if sessions is not None:
            self._unwatch = [
                sessions.asks.watch_elicitations(self._question_came),
                sessions.asks.watch_samplings(self._sampling_came),
            ]
        if services.mcp is not None:
            self._unwatch.append(services.mcp.watch_mcp(self.server_changed))
            for server in services.mcp.mcp_status():  # failed before this app listened
                self.server_changed(server)

    def server_changed(self, server: McpServerState) -> None:
        """Repaint the status bar's count; one notice when a server fails, and one for each new
        skipped tool or error it logged."""
        app = self.app
        if server.fresh_failure:  # a connection or its status
            app.notify(failure_notice(server), severity="error", timeout=10)
        for notice in new_notices(server, self._told):
            app.notify(notice, severity="warning", timeout=10)
        for notice in error_notices(server, self._told):  # what it logged at error level: once each
            app.notify(notice, severity="error", timeout=10)
        app.view.paint_chrome()

    def unwatch(self) -> None:
        for unwatch in self._unwatch:
            unwatch()
        self._unwatch = []

    def _question_came(self, question: Any) -> None:
        self.app.call_later(self._ask, question)  # told from the tool call's task: the dialog opens in the app's turn

    def _sampling_came(self, question: Any) -> None:
        self.app.call_later(self._approve, question)

    def _approve(self, question: Any) -> None:
        """An MCP server's sampling request: its panel; the decision handed back to the waiting tool call."""
        from agent_tui.tui.screens.sampling import SamplingScreen

        app = self.app
        server = question.request.server

        def decided(approve: bool | None) -> None:
            if question.ended.is_set():
                return
            try:
                if app.services.sessions is not None:
                    app.services.sessions.asks.answer_sampling(question.request_id, bool(approve))
            except Exception as error:  # noqa: BLE001 - the call ended meanwhile
                app.notify(f"MCP server {server}: {error}", severity="warning")
                return
            app.notify(f"MCP server {server} asked to sample; {'approved' if approve else 'declined'}")

        screen = SamplingScreen(question.request)
        app.push_screen(screen, decided)
        app.run_worker(self._close_when_ended(question, screen), group="mcp-question")

    def _ask(self, question: Any) -> None:
        """An MCP server's question: its dialog, the answer handed back to the waiting tool call."""
        from agent_tui.tui.screens.elicitation import ElicitationScreen

        app = self.app

        def answered(answer: tuple[str, dict[str, Any] | None] | None) -> None:
            if question.ended.is_set():  # closed because its call ended: nothing to answer
                return
            action, content = answer or ("cancel", None)
            try:
                if app.services.sessions is not None:
                    app.services.sessions.asks.answer_elicitation(question.request_id, action, content)
            except Exception as error:  # noqa: BLE001 - the call ended meanwhile, or the answer does not fit
                app.notify(f"MCP server {question.request.server}: {error}", severity="warning")

        screen = ElicitationScreen(question.request)
        app.push_screen(screen, answered)
        app.run_worker(self._close_when_ended(question, screen), group="mcp-question")

    async def _close_when_ended(self, question: Any, screen: Screen[Any]) -> None:
        """The question's call ended first (interrupted): its dialog goes, saying why."""
        await question.ended.wait()
        if self.app.screen is screen:  # one above it (another question) keeps it until that one is answered
            screen.dismiss(None)
            self.app.notify(f"MCP server {question.request.server}: the request ended with its tool call")

    async def run_prompt(self, name: str, arguments: str = "") -> None:
        """``/mcp__server__prompt args…``: the missing required arguments asked for, the server's
        expansion sent as a prompt."""
        from agent_tui.tui.screens.mcp_prompt import McpPromptScreen

        app = self.app
        mcp, location = app.services.mcp, app.services.location
        prompt = prompts_here(mcp.mcp_status() if mcp is not None else (), location).get(name)
        if mcp is None or prompt is None:
            app.notify(f"/{name}: the MCP server no longer offers this prompt", severity="error")
            return
        given, missing = prompt.fill(arguments)
        if not missing:
            await self._expand(name, prompt, given)
            return

        async def complete(argument: str, value: str) -> list[str]:
            return await mcp.mcp_complete(Path(location), prompt.server, prompt.name, argument, value, given)

        def asked(answers: dict[str, str] | None) -> None:
            if answers is not None:
                app.run_worker(self._expand(name, prompt, {**given, **answers}), group="mcp-prompt")

        app.push_screen(McpPromptScreen(f"/{name}", missing, complete), asked)

    async def _expand(self, name: str, prompt: Any, arguments: dict[str, str]) -> None:
        from agent_tui.core.api import McpPromptError

        app = self.app
        mcp = app.services.mcp
        assert mcp is not None
        try:
            text = await mcp.mcp_prompt(Path(app.services.location), prompt.server, prompt.name, arguments)
        except McpPromptError as error:
            app.notify(f"/{name}: {error}", severity="error")
            return
        if not text:
            app.notify(f"/{name}: the prompt came back empty", severity="warning")
            return
        app.view.send(text, Delivery.STEER)
