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
import os
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
    control stopped): a terminal's hang-up sends one to a running app, ``kill -CONT`` another.

    Both do their work on the app's loop, not in the signal handler: a handler runs on the main
    thread wherever the signal caught it, and leaving or entering the terminal writes through the
    writer thread's queue. Caught inside that queue's ``put`` (its lock held), the handler's own
    write waited for ever on the same lock: a Ctrl+Z (or ``fg``) that froze the app, about one in
    eight under load."""

    def __init__(self, app, **kwargs) -> None:  # noqa: ANN001, ANN003 - as LinuxDriver
        own_stop = signal.getsignal(signal.SIGTSTP)
        super().__init__(app, **kwargs)
        self._listener: HangupListener = app  # the same app, typed as what _tell_app calls on it
        self._gone_loop: asyncio.AbstractEventLoop | None = None
        if self._file is not None:  # sys.__stderr__: None only without a stderr, where there is nothing to wrap
            # Textual types the attribute as sys.__stderr__'s TextIOWrapper; it only writes to it
            # as an IO[str] (WriterThread), which DroppingOutput stands in for.
            self._file = cast("TextIOWrapper", DroppingOutput(self._file, self._tell_app))
        self._own_stop: Callable[[int, FrameType | None], object] | None = own_stop if callable(own_stop) else None

    def _sigtstp_application(self, *_: object) -> None:  # Textual installs it as the SIGTSTP handler
        self._on_loop(self._stop)

    def _sigcont_application(self, *_: object) -> None:  # ... and this one for SIGCONT
        self._on_loop(self._resume)

    def _on_loop(self, work: Callable[[], None]) -> None:
        """``work`` on the app's loop, soon; at once where no loop runs it (before the app
        started, after it ended): no terminal mode to leave or enter then, so no write."""
        if self._loop_running():
            assert self._gone_loop is not None
            self._gone_loop.call_soon_threadsafe(work)
        else:
            work()

    def _stop(self) -> None:
        if self._auto_restart and self._loop_running():  # as Textual's own handler does
            self.suspend_application_mode()
            self._must_signal_resume = True
        if self._own_stop is not None:
            self._own_stop(signal.SIGTSTP, None)
        else:
            os.kill(os.getpid(), signal.SIGSTOP)

    def _resume(self) -> None:
        running = self._key_thread is not None and self._key_thread.is_alive()
        if self._auto_restart and self._loop_running() and not running:
            self.resume_application_mode()

    def _loop_running(self) -> bool:
        loop = self._gone_loop
        return loop is not None and loop.is_running()

    def start_application_mode(self) -> None:
        self._gone_loop = asyncio.get_running_loop()
        super().start_application_mode()

    def _tell_app(self) -> None:  # on the writer thread
        from agent_tui import exit_grace

        exit_grace.arm(signal.SIGHUP)  # as for SIGHUP: a quit that wedges does not keep the process alive
        if self._gone_loop is not None:
            self._gone_loop.call_soon_threadsafe(self._listener.terminal_gone)
