"""Output to a terminal that went away: dropped, and the app told once."""

from __future__ import annotations

import asyncio
import errno
import io
import signal
from types import SimpleNamespace

import pytest

from agent_tui.tui.terminal import DroppingOutput, HangupSafeDriver
from tests.waiting import until


class HungUp(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.hung_up = False

    def write(self, text: str) -> int:
        if self.hung_up:
            raise OSError(errno.EIO, "Input/output error")
        return super().write(text)

    def flush(self) -> None:
        if self.hung_up:
            raise OSError(errno.EIO, "Input/output error")


def test_writes_pass_through_until_the_terminal_hangs_up_then_are_dropped() -> None:
    stream, told = HungUp(), []
    out = DroppingOutput(stream, lambda: told.append("gone"))
    assert out.write("frame 1") == 7 and stream.getvalue() == "frame 1" and not out.gone
    stream.hung_up = True
    assert out.write("frame 2") == 7  # no exception reaches Textual's writer thread
    out.flush()
    out.write("frame 3")
    assert out.gone and told == ["gone"] and stream.getvalue() == "frame 1"


def test_a_failing_flush_also_counts() -> None:
    stream, told = HungUp(), []
    out = DroppingOutput(stream, lambda: told.append("gone"))
    stream.hung_up = True
    out.flush()
    assert out.gone and told == ["gone"]


async def test_stop_and_continue_signals_leave_and_enter_the_terminal_on_the_loop_not_in_the_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A signal handler runs wherever the signal caught the main thread; caught inside the writer
    queue's ``put``, a handler that wrote waited for ever on the lock that ``put`` held (a Ctrl+Z
    that froze a warm TUI). The handler only hands the work to the loop."""
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGTSTP, signal.SIGCONT)}
    stops: list[int] = []
    signal.signal(signal.SIGTSTP, lambda signum, frame: stops.append(signum))  # a warm child's own way to stop
    try:
        driver = HangupSafeDriver(SimpleNamespace())
        modes: list[str] = []
        monkeypatch.setattr(driver, "suspend_application_mode", lambda: modes.append("left"))
        monkeypatch.setattr(driver, "resume_application_mode", lambda: modes.append("entered"))
        driver._gone_loop = asyncio.get_running_loop()  # as start_application_mode sets it

        signal.raise_signal(signal.SIGTSTP)  # the handler Textual installed runs before this returns
        assert modes == [] and stops == []
        await until(lambda: stops == [signal.SIGTSTP])
        assert modes == ["left"]  # the terminal is left before the process stops

        signal.raise_signal(signal.SIGCONT)
        assert modes == ["left"]
        await until(lambda: modes == ["left", "entered"])
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
