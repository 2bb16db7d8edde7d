"""Output to a terminal that went away: dropped, and the app told once."""

from __future__ import annotations

import errno
import io

from agent_tui.tui.terminal import DroppingOutput


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
