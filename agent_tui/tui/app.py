"""The Textual app: a thin composition root.

It wires themes, the session view, the picker, the help screen and the command
registry's actions together. ``bootstrap`` builds it; a session on screen is a
``SessionView`` whose ``SessionFeed`` folds the facade's log and deltas into a
``Transcript`` (``transcript/model.py``) that the widgets in ``widgets/`` paint.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.theme import Theme
from textual.widget import MountError
from textual.widgets import Footer, Static

from agent_tui.tui.command_files import CommandFiles
from agent_tui.tui.command_registry import Command, palette, resolve
from agent_tui.tui.ctrl_c import CtrlC
from agent_tui.tui.file_index import mention
from agent_tui.tui.frame_pacer import PacedScreen
from agent_tui.tui.gc_policy import tune_runtime
from agent_tui.tui.mcp_interactions import McpInteractions
from agent_tui.tui.notice_hold import HeldNotice, NoticeHold
from agent_tui.tui.pages import Pages
from agent_tui.tui.pickers import Pickers
from agent_tui.tui.screens.child_session import ChildSessionScreen
from agent_tui.tui.screens.picker import SessionPicker
from agent_tui.tui.services import CoreUnavailable, TuiServices
from agent_tui.tui.session_actions import SessionActions
from agent_tui.tui.shared_css import SharedStylesheet
from agent_tui.tui.startup import Startup
from agent_tui.tui.theme_watch import watch_theme_files
from agent_tui.tui.themes import APP_VARIABLE_DEFAULTS, DEFAULT_THEME, load_themes, theme_dirs
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.plan import PlanPanel
from agent_tui.tui.widgets.prompt import IMAGE_SUFFIXES, PromptInput
from agent_tui.tui.widgets.session_view import SessionView
from agent_tui.tui.widgets.transcript import TranscriptView
from agent_tui.vocab.kinds import Delivery

if TYPE_CHECKING:  # the block widgets load lazily (``lazy``): not on the first frame's path
    from rich.console import RenderableType

    from agent_tui.tui.widgets.tool_block import ToolCallView


def _compile_fence_lexers() -> None:
    from agent_tui.tui.widgets.fences import warm_lexers  # Rich's Markdown: not on the first frame's path

    warm_lexers()


@dataclass(frozen=True)
class StartMode:
    """How the app opens: a new session, the latest here, the picker, or one id."""

    continue_latest: bool = False
    picker: bool = False
    session_id: str | None = None
    prompt: str | None = None
    """Sent as the first prompt once the session is open (``agent-tui "PROMPT"``)."""


VIEW_FREE_ACTIONS = frozenset({"ctrl_c", "help", "command_palette", "focus_task"})
"""The app's key actions that do not act on the session view (offered over a subagent's transcript)."""


class AgentApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "agent-tui"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [  # the footer shows the short descriptions, the help screen the tooltips
        Binding(
            "ctrl+c",
            "ctrl_c",
            "copy / stop / clear / quit",
            priority=True,
            show=False,
            tooltip="copy the selection; else interrupt the running agent; else clear the prompt; "
            "on an idle, empty prompt twice quits",
        ),
        Binding(
            "escape",
            "interrupt",
            "interrupt",
            tooltip="interrupt the running session (pending input stays); idle, Esc Esc rewinds",
        ),
        Binding(
            "shift+tab",
            "cycle_agent",
            "agent",
            priority=True,
            tooltip="switch to the next primary agent (build, plan, yours) from the next step",
        ),
        Binding(
            "alt+a",
            "cycle_approval",
            "approval",
            show=False,
            priority=True,
            tooltip="cycle the approval mode: ask → auto-edit (edits in the project) → auto (everything "
            "in the sandbox) → ask; deny rules always apply",
        ),
        Binding("ctrl+r", "resume", "sessions", tooltip="session picker"),
        Binding("ctrl+n", "new_session", "new", tooltip="new session"),
        Binding("alt+w", "withdraw", "withdraw pending", show=False, tooltip="withdraw the last pending input"),
        Binding(
            "alt+p",
            "pause_queue",
            "pause queue",
            show=False,
            tooltip="pause the queue (queued input waits when the agent goes idle); again resumes it",
        ),
        Binding(
            "ctrl+end",
            "follow",
            "follow",
            show=False,
            priority=True,
            tooltip="follow the newest output (or click the “new output below” bar)",
        ),
        Binding(
            "ctrl+o",
            "toggle_details",
            "details",
            show=False,
            priority=True,
            tooltip="unfold every tool output, reasoning and summary in view; again folds them",
        ),
        Binding(
            "alt+s",
            "focus_task",
            "subagent",
            show=False,
            tooltip="focus the newest task block (again: the one before); Enter opens its subagent, Esc leaves it",
        ),
        Binding(
            "alt+o",
            "latest_output",
            "output",
            show=False,
            tooltip="the newest tool output, whole, full screen (PageUp/PageDown, Esc closes)",
        ),
        Binding("alt+t", "toggle_plan", "plan", show=False, tooltip="fold the plan above the prompt; again unfolds it"),
        Binding("f1", "help", "help", tooltip="this help"),
        # Textual's own palette binding, declared here so the help screen lists it too.
        Binding(
            App.COMMAND_PALETTE_BINDING,
            "command_palette",
            "palette",
            show=False,
            priority=True,
            tooltip="command palette",
        ),
    ]

    def __init__(
        self,
        services: TuiServices,
        start: StartMode = StartMode(),
        theme: str = DEFAULT_THEME,
        theme_dirs_: list[Path] | None = None,
        watch_themes: bool = True,
        connect: Callable[[], Awaitable[None]] | None = None,
        command_dirs_: list[Path] | None = None,
    ) -> None:
        super().__init__()
        self.stylesheet = SharedStylesheet(variables=self.get_css_variables())  # before any CSS is read
        self.services = services
        self.start = start
        self._theme_dirs = theme_dirs() if theme_dirs_ is None else theme_dirs_
        self._watch_themes = watch_themes
        self._notices = NoticeHold()
        self.connect = connect
        """Opens the core after the first frame (``Startup.connect``); None: it is open already."""
        self.startup_error: str | None = None  # set when connect raised StartupFailed
        self.stopped_by: int | None = None  # the signal that stopped the app, if one did
        self.ctrl_c = CtrlC(self)  # copy, interrupt, clear, quit
        self.session_on_exit: str | None = None  # the session on screen when the app exited
        self._last_escape: int | None = None
        self._stop_watch = asyncio.Event()
        self.command_files = CommandFiles(self, command_dirs_, self._stop_watch)  # prompt files as commands
        self.actions = SessionActions(self)  # rewind, fork, rename, export, pause, compact, model
        self.pages = Pages(self)  # /context, /usage, /mcp, /skills, /agents, /permissions, a subagent's transcript
        self.pickers = Pickers(self)  # /theme, /model, /agent without a name
        self.startup = Startup(self)
        self.mcp_interactions = McpInteractions(self)  # servers' states, questions, prompts as commands
        themes, self._theme_errors = load_themes(self._theme_dirs)
        for item in themes.values():
            self.register_theme(item)
        # Chosen before start-up: switching themes later re-parses all CSS (~50 ms).
        if theme not in self.available_themes:
            known = ", ".join(sorted(self.available_themes))
            self._theme_errors.append(f"no theme {theme!r} (available: {known}); using {DEFAULT_THEME}")
            theme = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self.theme = theme

    # ------------------------------------------------------------------ setup

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(APP_VARIABLE_DEFAULTS)

    def get_default_screen(self) -> Screen:
        keys = self.services.keys_first  # a typed key's frame comes as soon as it is due (frame_pacer)
        return PacedScreen(id="_default", hurry=lambda: keys.waiting)

    def compose(self) -> ComposeResult:
        yield SessionView(self.services, None)
        yield Static(self.first_frame_keys(), id="footer-slot")  # the footer's row until it comes (_mount_footer)

    def first_frame_keys(self) -> str:
        """The app's footer keys as text, so the first frame shows them before the real Footer mounts."""
        shown = [b for b in self.BINDINGS if isinstance(b, Binding) and b.show and b.description]
        return "  ".join(f"{self.get_key_display(b)} {b.description}" for b in shown)

    async def on_mount(self) -> None:
        self.call_after_refresh(self._mount_footer, self.screen)
        self.call_after_refresh(tune_runtime)
        self.call_after_refresh(lambda: self.run_worker(self._warm_lexers(), group="lexers"))
        self.set_interval(self.services.timings.gc_quiet_s, self.services.quiet_gc.tick, name="quiet-gc")
        for error in self._theme_errors:
            self.notify(error, severity="warning")
        if self._watch_themes:
            self.run_worker(self._watch_theme_files(), group="themes")
        self.run_worker(self.mcp_interactions.watch(), group="mcp")
        self.run_worker(self.command_files.watch(), group="commands")
        if self.start.picker:  # at once: its rows arrive when the store is open
            self.action_resume()
        if self.connect is None:
            self.startup.tell_what_settings_leave_out()
            await self.startup.open_start()
        else:  # open the core after the first frame; typing works meanwhile
            self.call_after_refresh(lambda: self.run_worker(self.startup.connect(), group="connect"))

    async def _mount_footer(self, screen: Screen) -> None:
        """The footer, a frame late: it recomposes its keys on every focus change, and those
        recompositions put ~40 ms between launch and the picker's first frame."""
        slot = screen.query_one("#footer-slot")
        try:
            await screen.mount(Footer(compact=True), before=slot)
        except MountError:  # the app is closing before its second frame
            return
        await slot.remove()
        screen.refresh_bindings()  # it draws its keys when the bindings change

    async def _warm_lexers(self) -> None:
        """Compile the common fence languages' lexers in a thread once the start session is on screen,
        not on the event loop when an answer's first fence streams (``widgets.fences``, issue 32)."""
        await self.services.started.wait()
        threading.Thread(target=_compile_fence_lexers, name="warm-lexers", daemon=True).start()

    async def _watch_theme_files(self) -> None:
        await self.services.runnable.wait()  # the least urgent start-up work: its import waits until the core is up
        await watch_theme_files(self._theme_dirs, self.theme_reloaded, self._theme_error, self._stop_watch)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: str = "information",  # type: ignore[override]
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notice; held while a permission panel is open (see ``NoticeHold``)."""
        if self._notices.holding:
            self._notices.held.append(HeldNotice(message, title, severity, timeout, markup))
            return
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)  # type: ignore[arg-type]

    def on_permission_panel_toggled(self, message: PermissionPanel.Toggled) -> None:
        if message.open and not self._notices.holding:
            self._notices.hold(self._notifications)
            self.clear_notifications()
        elif not message.open and self._notices.holding:
            self._notices.release(
                lambda n: self.notify(n.message, title=n.title, severity=n.severity, timeout=n.timeout, markup=n.markup)
            )

    async def action_run_custom(self, name: str, arguments: str = "") -> None:
        await self.command_files.run(name, arguments)

    async def action_run_mcp_prompt(self, name: str, arguments: str = "") -> None:
        await self.mcp_interactions.run_prompt(name, arguments)

    async def action_init_agents_md(self) -> None:
        """``/init``: a prompt asking the agent to write or improve AGENTS.md, sent as any prompt is."""
        from agent_tui.core.api import init_prompt

        self.view.send(init_prompt(), Delivery.STEER)

    def action_show_context(self) -> None:
        self.pages.show_context()

    def action_show_usage(self) -> None:
        self.pages.show_usage()

    def on_unmount(self) -> None:
        self._stop_watch.set()
        self.mcp_interactions.unwatch()

    async def on_event(self, event: events.Event) -> None:
        """The app sees every input event before the focused widget does."""
        if isinstance(event, events.InputEvent):  # the user is here: no full collection now
            self.services.quiet_gc.busy()
        if isinstance(event, events.Key) and event.key != "escape":
            self._last_escape = None  # Esc Esc is two Esc keys in a row: any other key disarms the first
        await super().on_event(event)
        if isinstance(event, events.Key):  # now queued for the focused widget: its frame goes first
            self.services.keys_first.delivered(self.focused or self.screen)

    # ------------------------------------------------------------------ themes

    def set_theme(self, name: str) -> bool:
        if name not in self.available_themes:
            known = ", ".join(sorted(self.available_themes))
            self.notify(f"no theme {name!r} (available: {known})", severity="error")
            return False
        self.theme = name
        return True

    def theme_reloaded(self, theme: Theme) -> None:
        self.register_theme(theme)
        if theme.name == self.theme:
            self.refresh_css(animate=False)

    def _theme_error(self, message: str) -> None:
        self.notify(message, severity="error")

    # ------------------------------------------------------------------ sessions

    @property
    def view(self) -> SessionView:
        return self.query_one(SessionView)

    async def open_session(self, session_id: str | None) -> None:
        """Show another session (None: a new one); the old one keeps running in the background."""
        await self.view.switch(session_id)
        self.view.query_one(PromptInput).focus()

    def action_resume(self) -> None:
        def opened(result: str | None) -> None:
            if result is not None:
                self.run_worker(self.open_session(result or None), group="open")

        self.push_screen(SessionPicker(self.services, self.view.session_id), opened)

    async def action_new_session(self) -> None:
        await self.open_session(None)

    async def action_interrupt(self) -> None:
        """Esc interrupts a running session; idle, a second Esc soon after opens the rewind list."""
        if await self.view.interrupt():
            self._last_escape = None
            return
        now = self.services.clock.now_ms()
        if self._last_escape is not None and now - self._last_escape <= self.services.timings.double_escape_s * 1000:
            self._last_escape = None
            await self.action_rewind()
            return
        self._last_escape = now
        self.view.query_one(PromptInput).focus()

    async def action_rewind(self) -> None:
        await self.actions.rewind()

    async def action_export(self) -> None:
        await self.actions.export()

    async def action_rename(self, title: str = "") -> None:
        await self.actions.rename(title)

    async def action_fork(self) -> None:
        await self.actions.fork()

    async def action_pause_queue(self) -> None:
        await self.actions.pause_queue()

    async def action_withdraw(self) -> None:
        await self.view.withdraw_last()

    def action_follow(self) -> None:
        self.view.query_one(TranscriptView).jump_to_bottom()

    def action_toggle_details(self) -> None:
        self.view.query_one(TranscriptView).toggle_details()

    def action_toggle_plan(self) -> None:
        self.view.query_one(PlanPanel).toggle()

    async def on_tool_call_view_open_child(self, message: ToolCallView.OpenChild) -> None:
        await self.pages.child(message.block)

    def on_tool_call_view_open_output(self, message: ToolCallView.OpenOutput) -> None:
        self.pages.output(message.block)

    def action_latest_output(self) -> None:
        self.pages.latest_output()

    def on_tool_call_view_leave(self, message: ToolCallView.Leave) -> None:
        """Esc on a focused task block: back to the prompt (over a subagent's transcript: back to its parent)."""
        if isinstance(self.screen, ChildSessionScreen):
            self.screen.dismiss(None)
        else:
            self.view.query_one(PromptInput).focus()

    def on_prompt_input_search_history(self, message: PromptInput.SearchHistory) -> None:
        self.pages.search_history(message.prompt)

    def action_focus_task(self) -> None:
        self.pages.focus_task()

    def action_mcp_servers(self) -> None:
        self.pages.mcp_servers()

    async def action_list_skills(self) -> None:
        await self.pages.skills()

    async def action_list_agents(self) -> None:
        await self.pages.agents()

    async def action_list_permissions(self) -> None:
        await self.pages.permissions()

    def action_help(self) -> None:
        self.pages.help()

    async def action_ctrl_c(self) -> None:
        await self.ctrl_c.press()

    def exit(self, result: None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        """Every way out passes here: the session on screen is kept for the quit hint (``quit_hint``)."""
        with contextlib.suppress(NoMatches):
            self.session_on_exit = self.view.session_id
        super().exit(result, return_code, message)

    def get_driver_class(self):  # noqa: ANN201 - type[Driver]
        driver = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver is LinuxDriver:  # not when TEXTUAL_DRIVER names another, nor on Windows
            from agent_tui.tui.terminal import HangupSafeDriver

            return HangupSafeDriver
        return driver

    def terminal_gone(self) -> None:
        """The terminal hung up (see ``terminal``): stop as for SIGHUP."""
        self.stop_for_signal(signal.SIGHUP)

    def stop_for_signal(self, signum: int) -> None:
        """SIGTERM, or SIGHUP when the terminal goes away: stop like a quit (running sessions are
        interrupted, which stops their tools' process groups) and exit with ``128 + signum``."""
        if self.stopped_by is None:
            self.stopped_by = signum
            self.run_worker(self.shutdown(), group="shutdown")

    async def shutdown(self) -> None:
        """Quit: the facade interrupts every running session (reason ``shutdown``); at most 5 s for them."""
        sessions = self.services.sessions
        if sessions is not None and self.services.active():
            await asyncio.wait([asyncio.ensure_future(sessions.shutdown())], timeout=5)
        self.exit()

    # ------------------------------------------------------------------ commands

    async def on_session_view_command_entered(self, message: SessionView.CommandEntered) -> None:
        await self.run_command(message.command)

    async def run_command(self, command: Command) -> None:
        """Run a slash or palette command: the app action the registry names for it."""
        action, args = resolve(command, self.services.command_specs())
        try:
            await self.run_action(("", action, args))
        except CoreUnavailable as error:
            self.notify(f"/{command.name}: {error}", severity="error")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for title, what, command in palette(self, self.services.command_specs()):
            yield SystemCommand(title, what, partial(self._run_in_background, command))

    def _run_in_background(self, command: Command) -> None:
        """A palette pick: in a worker, as a command may wait for the core."""
        self.run_worker(self.run_command(command), group="command")

    def theme_names(self) -> list[str]:
        return sorted(self.available_themes)

    def model_names(self) -> list[str]:
        return sorted({m for m in (self.services.model, *self.services.known_models) if m})

    def agent_names(self) -> list[str]:
        return self.actions.agent_names()

    async def action_select_agent(self, agent: str = "") -> None:
        await self.actions.choose_agent(agent) if agent else self.pickers.agent()

    async def action_cycle_agent(self) -> None:
        await self.actions.cycle_agent()

    async def action_cycle_approval(self) -> None:
        await self.actions.cycle_approval()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("cycle_agent", "cycle_approval"):  # priority keys: not over a modal screen
            return len(self.screen_stack) == 1
        if isinstance(self.screen, ChildSessionScreen):  # a read-only subagent view: no session actions
            return action in VIEW_FREE_ACTIONS
        return True

    async def action_compact(self) -> None:
        await self.actions.compact()

    async def action_select_model(self, model: str = "") -> None:
        await self.actions.select_model(model) if model else self.pickers.model()

    def action_attach_image(self, path: str = "") -> None:
        """``/image PATH``: the image goes into the prompt as an ``@`` mention, attached when sent."""
        prompt = self.view.query_one(PromptInput)
        if not path:
            self.notify("/image needs PATH: /image PATH", severity="error")
        elif not path.lower().endswith(IMAGE_SUFFIXES):
            self.notify(f"/image {path}: not a PNG, JPEG, GIF or WebP file name", severity="error")
        else:
            prompt.insert(("" if not prompt.text or prompt.text.endswith((" ", "\n")) else " ") + mention(path))
        prompt.focus()

    async def action_select_theme(self, name: str = "") -> None:
        await self.pickers.choose_theme(name) if name else self.pickers.theme()

    async def action_shutdown(self) -> None:
        await self.shutdown()
