"""What every screen and session view is handed: the facade, where, which model, time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_tui.tui.command_registry import CommandSpec, custom_spec
from agent_tui.tui.gc_policy import QuietCollector
from agent_tui.tui.keys_first import KeysFirst
from agent_tui.tui.mcp_prompts import prompt_specs
from agent_tui.tui.port import SessionsPort
from agent_tui.tui.timings import Timings
from agent_tui.vocab.clock import Clock, SystemClock


class StartupFailed(Exception):
    """Raised by the app's ``connect`` when it cannot go on (an invalid config): the app exits with
    ``code`` and the command prints the message."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class CoreUnavailable(Exception):
    """The session store could not be opened; ``str()`` says why (the app stays open to say so)."""


def _unknown_window(model: str | None) -> int | None:
    return None


@dataclass
class TuiServices:
    """``sessions`` may arrive after the first frame (see :meth:`connect_to`)."""

    sessions: SessionsPort | None
    location: str
    model: str | None = None
    agent: str | None = None
    approval: str = "ask"  # the approval mode new sessions start in: the config's, then the cycle key's
    clock: Clock = field(default_factory=SystemClock)
    timings: Timings = field(default_factory=Timings)
    context_window: Callable[[str | None], int | None] = _unknown_window
    known_models: tuple[str, ...] = ()  # offered in the palette
    learn_model: Callable[[str], None] | None = None  # blocking (LiteLLM's model map): run in a thread
    setup_hint: str | None = None  # one line saying what to configure, when something is missing
    # Shows a warning line on the screen, from any thread (telemetry's export threads); set by the app
    # while it runs. None: the line goes to stderr.
    warn: Callable[[str], None] | None = None
    # The picker's first rows (location or None for all, limit) read before the facade opens; blocking.
    peek_sessions: Callable[[str | None, int], list[Any]] | None = None
    mcp: Any = None  # a tui.mcp_view.McpPort (the runtime) once it is up; None: no MCP servers to show
    paste_chip_lines: int = 20  # from the settings once they are validated
    settings: Any = None  # the validated Settings once the core is open: rules for @mentions, vision
    custom_commands: dict[str, Any] = field(default_factory=dict)  # name -> CustomCommand (the app keeps it fresh)
    trust_question: Any = None  # a screens.trust.TrustQuestion when the project's config waits to be trusted
    trust_project: Callable[[], Any] | None = None  # records that trust (awaitable); set with trust_question

    def __post_init__(self) -> None:
        self.connected = asyncio.Event()  # the facade can read
        self.runnable = asyncio.Event()  # and a runner is attached: prompts can run
        # and the session the app starts on (``-c``, ``-r ID``) is open: a prompt sent before then goes to it
        self.started = asyncio.Event()
        self.runner_error: str | None = None
        self.core_error: str | None = None  # set when the store could not be opened
        self.quiet_gc = QuietCollector(self.clock, self.timings.gc_quiet_s)  # told of keys and repaints
        self.keys_first = KeysFirst(self.clock)  # told of keys; transcript repaints wait for their frames
        if self.sessions is not None:
            self.connected.set()
            self.runnable.set()
            self.started.set()

    def connect_to(self, sessions: SessionsPort, runnable: bool = True) -> None:
        """The facade is open; ``runnable=False`` when the runner attaches later (set ``runnable`` then)."""
        self.sessions = sessions
        self.connected.set()
        if runnable:
            self.runnable.set()

    def fail_core(self, reason: str) -> None:
        """The core will not open: everything waiting for it gets :class:`CoreUnavailable`."""
        self.core_error = reason
        self.connected.set()
        self.started.set()
        self.runnable.set()

    async def ready(self) -> SessionsPort:
        """The facade, once the core is open (typing works before that); raises
        :class:`CoreUnavailable` when it could not be opened."""
        await self.connected.wait()
        if self.sessions is None:
            raise CoreUnavailable(self.core_error or "the session store is not open")
        return self.sessions

    async def ready_to_run(self) -> SessionsPort:
        """The facade once prompts can run (the runner opens after the store) and the start
        session is open (a prompt typed before it showed is for it)."""
        sessions = await self.ready()
        await self.runnable.wait()
        await self.started.wait()
        return sessions

    def command_specs(self) -> tuple[CommandSpec, ...]:
        """The custom commands, then the MCP servers' prompts here, as the command registry lists them."""
        files = tuple(custom_spec(name, command.help) for name, command in sorted(self.custom_commands.items()))
        taken = {spec.name for spec in files}
        return files + tuple(s for s in prompt_specs(self.mcp, self.location) if s.name not in taken)

    def active(self) -> dict[str, dict[str, str]]:
        return self.sessions.active() if self.sessions is not None else {}
