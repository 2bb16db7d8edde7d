"""The pages the app opens over the session on screen to show something: the keys and commands
(F1, ``/help``), the next request's size (``/context``), what the session spent (``/usage``), MCP servers (``/mcp``), skills (``/skills``), agents (``/agents``),
saved approvals (``/permissions``), a subagent's transcript (Enter on a ``task`` block, or Alt+S to reach one from
the keyboard), a tool call's whole output (``o`` on its block, Alt+O the newest) and the prompt-history search
(Ctrl+S in the prompt).

``AgentApp`` keeps the ``action_*`` names the command registry and the bindings run, each one
line into here, as it does for ``SessionActions``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.tui.mcp_view import listing, recent_logs
from agent_tui.tui.screens.agents import AgentsScreen
from agent_tui.tui.screens.child_session import ChildSessionScreen
from agent_tui.tui.screens.context import ContextScreen
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.screens.history_search import HistorySearch
from agent_tui.tui.screens.mcp import McpScreen
from agent_tui.tui.screens.output_view import OutputView
from agent_tui.tui.screens.permissions import PermissionsScreen
from agent_tui.tui.screens.skills import SkillsScreen
from agent_tui.tui.screens.usage import UsageScreen
from agent_tui.tui.transcript_blocks import ToolBlock
from agent_tui.tui.widgets.pending import PendingInputStrip
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from agent_tui.tui.app import AgentApp


class Pages:
    """Opens each page with what it shows, read off the event loop where it reads files or the store."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app

    def help(self) -> None:
        """Every key (the prompt's, the pending strip's, the app's, the permission panel's, a tool
        block's) and every command, custom ones included."""
        from agent_tui.tui.widgets.tool_block import ToolCallView  # loaded lazily (``lazy``), so here

        app = self.app
        keys = [
            *PromptInput.BINDINGS,
            *PendingInputStrip.BINDINGS,
            *app.BINDINGS,
            *PermissionPanel.BINDINGS,
            *ToolCallView.BINDINGS,
        ]
        app.push_screen(HelpScreen(keys, app.services.command_specs()))

    def _location(self) -> str:
        return self.app.view.transcript.facts.location or self.app.services.location

    def show_context(self) -> None:
        """``/context``: the next request's size, measured in a worker while the page says so."""
        screen = ContextScreen()
        self.app.push_screen(screen)
        self.app.run_worker(self._measure_context(screen), group="context", exclusive=True)

    async def _measure_context(self, screen: ContextScreen) -> None:
        services = self.app.services
        try:
            sessions = await services.ready()
            breakdown = await sessions.context_breakdown(
                self.app.view.session_id, location=self._location(), model=services.model, agent=services.agent
            )
        except Exception as error:  # noqa: BLE001 - any failure is said on the page, in one line
            screen.failed(str(error) or type(error).__name__)
            return
        screen.show(breakdown)

    def show_usage(self) -> None:
        """``/usage``: the session's tokens and cost with its subagents', read in a worker."""
        screen = UsageScreen()
        self.app.push_screen(screen)
        self.app.run_worker(self._read_usage(screen), group="usage", exclusive=True)

    async def _read_usage(self, screen: UsageScreen) -> None:
        session_id = self.app.view.session_id
        if session_id is None:
            screen.empty("No session yet: nothing spent.")
            return
        try:
            usage = await (await self.app.services.ready()).usage(session_id)
        except Exception as error:  # noqa: BLE001 - any failure is said on the page, in one line
            screen.empty(f"Could not read the usage: {error or type(error).__name__}")
            return
        screen.show(usage)

    async def permissions(self) -> None:
        """``/permissions``: the project's saved approvals (``d`` revokes one) and this session's mode."""
        app = self.app
        location = self._location()
        try:
            sessions = await app.services.ready()
            saved = await sessions.permissions.approvals(location)
        except Exception as error:  # noqa: BLE001 - an unreadable store: one line
            app.notify(f"/permissions: {error}", severity="error")
            return

        async def revoke(action: str, pattern: str) -> None:
            await sessions.permissions.revoke_approvals(location, action, pattern)

        project = saved[0].project_root if saved else location
        app.push_screen(PermissionsScreen(saved, project, app.view.approval_mode(), revoke))

    def mcp_servers(self) -> None:
        mcp = self.app.services.mcp
        statuses, location = (mcp.mcp_status() if mcp is not None else []), self._location()
        self.app.push_screen(McpScreen(listing(statuses, location), recent_logs(statuses, location)))

    async def skills(self) -> None:
        """``/skills``: what the selected agent may load, read from disk now (a new SKILL.md shows at once)."""
        from agent_tui.core.api import DEFAULT_AGENT, skill_listing

        settings = self.app.services.settings
        agent = self.app.services.agent or (settings.agent if settings is not None else DEFAULT_AGENT)
        rules = settings.permission_rules(agent) if settings is not None else []
        rows, problems = await asyncio.to_thread(skill_listing, Path(self._location()), rules)
        self.app.push_screen(SkillsScreen(rows, problems, agent))

    async def agents(self) -> None:
        """``/agents``: every agent here; choosing a primary one switches to it as ``/agent NAME`` does."""
        from agent_tui.core.api import agent_listing, load_settings

        app = self.app
        settings = app.services.settings
        try:
            if settings is None:  # the core is not open yet: read them now
                settings = await asyncio.to_thread(load_settings, Path(self._location()))
        except Exception as error:  # noqa: BLE001 - a config mistake: one line
            app.notify(f"/agents: {error}", severity="error")
            return
        view = app.view
        current = (view.transcript.facts.agent if view.session_id is not None else None) or app.services.agent
        current = current or settings.agent

        def chosen(agent: str | None) -> None:
            if agent is not None and agent != current:
                app.run_worker(app.actions.choose_agent(agent), group="agent")

        app.push_screen(AgentsScreen(agent_listing(settings), settings.problems, current), chosen)

    async def child(self, block: ToolBlock) -> None:
        """A ``task`` block's subagent transcript, over the screen it is on (Esc: back)."""
        app = self.app
        child = block.child_session
        if child is None:  # not seen running yet: the parent's children name their calls
            screen = app.screen
            parent = screen.session_id if isinstance(screen, ChildSessionScreen) else app.view.session_id
            try:
                found = await (await app.services.ready()).children(parent) if parent else []
            except Exception as error:  # noqa: BLE001 - an unreadable store: one line
                app.notify(f"cannot find the subagent: {error}", severity="error")
                return
            child = next((c.id for c in found if c.spawned_call_id == block.call_id), None)
        if child is None:
            app.notify("this task has no subagent session yet", severity="warning")
            return
        app.push_screen(ChildSessionScreen(app.services, child))

    def focus_task(self) -> None:
        """Alt+S: focus the newest ``task`` block on screen; again, the one before it (around to the
        newest). Enter then opens its subagent; Esc goes back to the prompt."""
        from agent_tui.tui.widgets.tool_block import TASK, ToolCallView  # loaded lazily (``lazy``), so here

        app = self.app
        blocks = [block for block in app.screen.query(ToolCallView) if block.block.name == TASK]
        if not blocks:
            app.notify("no subagent task here", timeout=3)
            return
        focused = app.focused
        at = blocks.index(focused) if isinstance(focused, ToolCallView) and focused in blocks else len(blocks)
        target = blocks[at - 1]  # index -1 wraps around to the newest
        target.focus()
        target.scroll_visible(animate=False)

    def search_history(self, prompt: PromptInput) -> None:
        """Ctrl+S: the project's prompts, filtered as the user types; the choice goes into ``prompt``."""
        self.app.push_screen(HistorySearch(prompt.prompts), prompt.take_from_history)

    def output(self, block: ToolBlock) -> None:
        """A tool call's whole output, full screen; found again by its key if the transcript is folded anew."""

        def current() -> ToolBlock | None:
            found = self.app.view.transcript.get(block.key)
            return found if isinstance(found, ToolBlock) else None

        self.app.push_screen(OutputView(block, current))

    def latest_output(self) -> None:
        """Alt+O: the newest tool call with output (running or done) in the session on screen."""
        for block in reversed(self.app.view.transcript.blocks):
            if isinstance(block, ToolBlock) and (block.output or block.live_output):
                self.output(block)
                return
        self.app.notify("no tool output here yet", timeout=3)
