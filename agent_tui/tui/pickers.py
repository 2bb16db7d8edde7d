"""``/theme``, ``/model`` and ``/agent`` typed without a name: a list to pick from (:class:`ChooseScreen`).

The theme list shows each highlighted theme live and puts the old one back on Esc; a chosen theme
is remembered in the user's config file (``core.api.remember_choice``), so the next launch opens
in it. A model may be one the list does not know yet (typed in full).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent_tui.tui.screens.choose import ChooseScreen

if TYPE_CHECKING:
    from agent_tui.tui.app import AgentApp


class Pickers:
    def __init__(self, app: AgentApp) -> None:
        self.app = app

    def theme(self) -> None:
        app = self.app
        before = app.theme

        def preview(name: str) -> None:
            app.theme = name

        def chosen(name: str | None) -> None:
            if name is not None:
                app.run_worker(self.choose_theme(name), group="theme")

        app.push_screen(ChooseScreen("Theme", app.theme_names(), before, preview=preview), chosen)

    async def choose_theme(self, name: str) -> None:
        """Switch to ``name`` and remember it for the next launches."""
        from agent_tui.core.api import remember_choice

        app = self.app
        if not app.set_theme(name):
            return
        try:
            file = await asyncio.to_thread(remember_choice, "theme", name)
        except Exception as error:  # noqa: BLE001 - an unwritable or broken config: the theme still applies now
            app.notify(f"theme {name} for now; not remembered: {error}", severity="warning")
            return
        app.notify(f"theme: {name} (remembered in {file})")

    def model(self) -> None:
        app = self.app

        def chosen(name: str | None) -> None:
            if name is not None:
                app.run_worker(app.actions.select_model(name), group="model")

        current = app.services.model
        app.push_screen(ChooseScreen("Model", app.model_names(), current, free=True), chosen)

    def agent(self) -> None:
        app = self.app

        def chosen(name: str | None) -> None:
            if name is not None:
                app.run_worker(app.actions.choose_agent(name), group="agent")

        view = app.view
        current = (view.transcript.facts.agent if view.session_id is not None else None) or app.services.agent
        app.push_screen(ChooseScreen("Agent", app.agent_names(), current), chosen)
