"""What the app does once its first frame is up: open the core, say what the settings leave out,
ask about trust, and show the session it was started for.

The first frame paints before any of it (``AgentApp.on_mount`` schedules ``connect`` after a
refresh), so typing works while the store opens; prompts sent meanwhile wait on
``services.started``.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

from agent_tui.tui.services import StartupFailed

if TYPE_CHECKING:
    from agent_tui.tui.app import AgentApp


class Startup:
    """The app's start-up steps, in the order a launch runs them."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app

    async def connect(self) -> None:
        """Open the core (``connect`` calls ``services.connect_to``), then the notices, trust and start."""
        app = self.app
        assert app.connect is not None
        app.services.warn = self.warn
        try:
            await app.connect()
        except StartupFailed as error:
            app.startup_error = str(error)
            app.exit(return_code=error.code)
            return
        except Exception as error:  # a bad database or config: one line, and the app says so
            app.services.fail_core(f"cannot open the session store: {error}")
            app.view.notice = app.services.core_error
            app.view.paint_chrome()
            return
        self.tell_what_settings_leave_out()
        if app.services.trust_question is not None:
            self.ask_trust()
        await self.open_start()

    def warn(self, line: str) -> None:
        """A warning from any thread: a notification while the app runs, else a line on stderr."""
        app = self.app
        if not app.is_running:
            print(f"agent-tui: {line}", file=sys.stderr, flush=True)
        elif threading.get_ident() == app._thread_id:  # noqa: SLF001 - Textual's own check, without its error
            app.notify(line, severity="warning", timeout=15)
        else:
            app.call_from_thread(app.notify, line, severity="warning", timeout=15)

    def tell_what_settings_leave_out(self) -> None:
        """Agent files left out (in part or whole), and commands that cannot be confined here."""
        settings = self.app.services.settings
        for problem in getattr(settings, "problems", ()):
            self.app.notify(problem, severity="warning", timeout=10)
        if settings is not None and (unconfined := settings.sandbox.notice()) is not None:
            self.app.notify(unconfined, severity="warning", timeout=15)

    def ask_trust(self) -> None:
        """The project's config asks for powers it does not have yet: ask once, at open."""
        from agent_tui.tui.screens.trust import TrustScreen

        app = self.app

        def answered(trusted: bool | None) -> None:
            if trusted and app.services.trust_project is not None:
                app.run_worker(self._trust(), group="trust")
            elif not trusted:
                app.notify("this project's config runs without what it asked for (agent-tui trust add, to trust it)")

        app.push_screen(TrustScreen(app.services.trust_question), answered)

    async def _trust(self) -> None:
        services = self.app.services
        assert services.trust_project is not None
        try:
            await services.trust_project()
        except Exception as error:  # noqa: BLE001 - an unwritable data dir: say so, run untrusted
            self.app.notify(f"could not record the trust: {error}", severity="error")
            return
        services.trust_question = None
        self.app.notify("project trusted: its config applies in full")

    async def open_start(self) -> None:
        """The session the launch asked for (``--continue``, ``--session``), else a new one."""
        app = self.app
        start = app.start
        try:
            if start.session_id:
                await app.open_session(start.session_id)
            elif start.continue_latest:
                latest = await (await app.services.ready()).latest(app.services.location)
                if latest is not None:
                    await app.open_session(latest.id)
                else:
                    app.notify("no session in this directory yet: starting a new one")
        finally:
            app.services.started.set()  # prompts sent meanwhile go to the session now on screen
        if start.prompt and start.prompt.strip():
            from agent_tui.vocab.kinds import Delivery

            app.view.send(start.prompt, Delivery.STEER)  # a worker, as the prompt's Enter
