"""Surviving the terminal going away (window closed, SSH dropped, tmux session killed).

Textual writes the screen from a thread; a write to a hung-up terminal raises
``EIO``, which ends that thread, and the app then blocks for ever on its full
queue: a process left behind that never stops its running tools. Here the
driver's output drops what cannot be written, and the first failed write tells
the app, which stops as for SIGHUP (running sessions interrupted, their tools'
process groups stopped, the store closed). That also covers a terminal that
hangs up without sending SIGHUP (Textual's input thread then reads end-of-file
in a loop): the cursor's blink writes within a second.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Protocol, cast

from textual.drivers.linux_driver import LinuxDriver

if TYPE_CHECKING:
    from io import TextIOWrapper
    from types import FrameType


class HangupListener(Protocol):
    """The app a :class:`HangupSafeDriver` drives (``AgentApp``)."""

    def terminal_gone(self) -> None: ...


class DroppingOutput:
    """The terminal stream, dropping writes once the terminal is gone; ``on_gone`` runs once."""

    def __init__(self, stream: IO[str], on_gone: Callable[[], None]) -> None:
        self._stream = stream
        self._on_gone: Callable[[], None] | None = on_gone
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except OSError:
                self._lost()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except OSError:
                self._lost()

    def _lost(self) -> None:
        self.gone = True
        on_gone, self._on_gone = self._on_gone, None
        if on_gone is not None:
            on_gone()

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def __getattr__(self, name: str):  # noqa: ANN204 - encoding, errors...: as the stream has them
        return getattr(self._stream, name)


class HangupSafeDriver(LinuxDriver):
    """Textual's POSIX driver writing through :class:`DroppingOutput`; calls ``app.terminal_gone()``
    on the app's loop when the terminal has gone away.

    Textual's SIGTSTP handler leaves the terminal and then stops the process with SIGSTOP. A
    process that had its own way to stop (a warm child, which asks its launcher to stop so the
    shell sees the job stopped) keeps it: the terminal is left first, then that handler runs.
    Textual's SIGCONT handler starts application mode (and its threads) again on every SIGCONT;
    here only when it is not running (after a stop, or a start in the background that job
    control stopped): a terminal's hang-up sends one to a running app, ``kill -CONT`` another."""

    def __init__(self, app, **kwargs) -> None:  # noqa: ANN001, ANN003 - as LinuxDriver
        own_stop = signal.getsignal(signal.SIGTSTP)
        self._resuming = False
        super().__init__(app, **kwargs)
        self._listener: HangupListener = app  # the same app, typed as what _tell_app calls on it
        self._gone_loop: asyncio.AbstractEventLoop | None = None
        if self._file is not None:  # sys.__stderr__: None only without a stderr, where there is nothing to wrap
            # Textual types the attribute as sys.__stderr__'s TextIOWrapper; it only writes to it
            # as an IO[str] (WriterThread), which DroppingOutput stands in for.
            self._file = cast("TextIOWrapper", DroppingOutput(self._file, self._tell_app))
        if callable(own_stop):
            signal.signal(signal.SIGTSTP, lambda signum, frame: self._stop_as_before(own_stop, signum, frame))

    def _stop_as_before(
        self, own_stop: Callable[[int, FrameType | None], object], signum: int, frame: FrameType | None
    ) -> None:
        if self._auto_restart:  # as Textual's own handler does before it stops the process
            self.suspend_application_mode()
            self._must_signal_resume = True
        own_stop(signum, frame)

    def _sigcont_application(self, *args: object) -> None:
        if self._resuming or (self._key_thread is not None and self._key_thread.is_alive()):
            return  # running, or being restarted by this handler further up the stack (handlers nest)
        self._resuming = True
        try:
            super()._sigcont_application(*args)
        finally:
            self._resuming = False

    def start_application_mode(self) -> None:
        self._gone_loop = asyncio.get_running_loop()
        super().start_application_mode()

    def _tell_app(self) -> None:  # on the writer thread
        from agent_tui import exit_grace

        exit_grace.arm(signal.SIGHUP)  # as for SIGHUP: a quit that wedges does not keep the process alive
        if self._gone_loop is not None:
            self._gone_loop.call_soon_threadsafe(self._listener.terminal_gone)
