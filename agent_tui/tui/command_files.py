"""The user's prompt files as commands while the app runs (``custom_commands`` reads them).

They are read once the app is up and again whenever one changes; a bad file is
one notice, told once until it is fixed. Running one sends its body, expanded,
as a prompt, after switching to the model and agent its front matter names.
``AgentApp`` keeps the ``action_run_custom`` name the command registry runs,
one line into here, as it does for ``Pages`` and ``Pickers``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.tui.command_registry import BY_NAME
from agent_tui.tui.custom_commands import command_dirs, load_commands, watch_commands
from agent_tui.vocab.kinds import Delivery

if TYPE_CHECKING:
    from agent_tui.tui.app import AgentApp


class CommandFiles:
    """``watch`` for the app's life (until ``stop`` is set); ``run`` one by name."""

    def __init__(self, app: AgentApp, dirs: list[Path] | None, stop: asyncio.Event) -> None:
        self.app = app
        self._dirs = dirs
        """Where the files are (None: the user's and the project's folders, found on first use)."""
        self._stop = stop
        self._errors: set[str] = set()  # told once each, until the file is fixed

    def dirs(self) -> list[Path]:
        if self._dirs is None:
            from agent_tui.core.api import paths

            self._dirs = command_dirs(paths.config_dir(), paths.project_root(Path(self.app.services.location)))
        return self._dirs

    async def reload(self) -> None:
        """Read the prompt files again (in a thread); each bad file is one notice, once."""
        app = self.app
        dirs = await asyncio.to_thread(self.dirs)
        commands, errors = await asyncio.to_thread(load_commands, dirs, BY_NAME)
        app.services.custom_commands = commands
        for error in errors:
            if error not in self._errors:
                app.notify(error, severity="error", timeout=10)
        self._errors = set(errors)

    async def watch(self) -> None:
        await self.reload()
        dirs = await asyncio.to_thread(self.dirs)
        await watch_commands(dirs, lambda: self.app.run_worker(self.reload(), group="commands-reload"), self._stop)

    async def run(self, name: str, arguments: str = "") -> None:
        """A prompt file's command: its body, expanded, sent as a prompt (its model and agent first)."""
        app = self.app
        command = app.services.custom_commands.get(name)
        if command is None:
            app.notify(f"/{name}: the command file is gone", severity="error")
            return
        if command.agent and command.agent != app.services.agent:
            await app.actions.select_agent(command.agent)
        if command.model and command.model != app.services.model:
            await app.actions.select_model(command.model)
        app.view.send(command.expand(arguments), Delivery.STEER)
