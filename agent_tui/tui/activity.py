"""One turn's clock: from Enter (or the moment the session is seen running) to its end.

Between Enter and the first token nothing on screen used to move, so a slow provider looked like
a hung app; Claude Code and Codex both show a spinner with the seconds since, and the tokens once
they stream. :class:`Activity` keeps that state and words the line; the widget
(``widgets/activity.py``) repaints it a few times a second while it spins, and not at all once
idle. No Textual here: the state is tested with plain numbers.

A turn ends when the session is seen idle after it was seen running, or when the log has folded
one more end of a busy period (``SessionFacts.executions_ended``) than when it began: a turn so
short that no repaint ever saw it running still ends.
"""

from __future__ import annotations

from dataclasses import dataclass

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FRAME_MS = 250  # the widget repaints at 4 Hz; the frame follows the clock, so snapshots are stable
CHARS_PER_TOKEN = 4  # streamed text is counted in characters; tokens are only known per step


def duration(ms: int) -> str:
    """``12s``, ``3m 05s``, ``1h 02m``: how long, as a person says it."""
    seconds = max(0, ms) // 1000
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def streamed_tokens(chars: int) -> str:
    """An estimate of streamed output tokens (``~1.2k``)."""
    tokens = chars // CHARS_PER_TOKEN
    return f"~{tokens / 1000:.1f}k" if tokens >= 1000 else f"~{tokens}"


@dataclass
class Activity:
    """``started_ms`` is set while a turn runs; ``took_ms`` once one has ended (until the next)."""

    started_ms: int | None = None
    took_ms: int | None = None
    seen_active: bool = False
    ends_at_start: int = 0  # ``executions_ended`` when the turn began
    chars_at_start: int = 0  # ``streamed_chars`` when the turn began
    waiting: bool = False  # begun by Enter: "thinking" until the first token (a turn seen mid-way "works")

    @property
    def spinning(self) -> bool:
        return self.started_ms is not None

    def begin(self, now_ms: int, ends: int, chars: int, enter: bool = True) -> None:
        """Enter on an idle session, or a running one first seen: the clock starts (once per turn)."""
        if self.started_ms is None:
            self.started_ms, self.took_ms, self.seen_active = now_ms, None, False
            self.ends_at_start, self.chars_at_start, self.waiting = ends, chars, enter

    def observe(self, active: bool, now_ms: int, ends: int, chars: int) -> None:
        """Each repaint: whether the session runs, and how many busy periods the log has ended."""
        if active:
            self.begin(now_ms, ends, chars, enter=False)
            self.seen_active = True
        elif self.started_ms is not None and (self.seen_active or ends > self.ends_at_start):
            self.took_ms, self.started_ms = now_ms - self.started_ms, None

    def cancel(self) -> None:
        """The prompt was not sent: nothing runs, nothing to time."""
        self.started_ms = None

    def reset(self) -> None:
        """Another session on screen."""
        self.started_ms, self.took_ms, self.seen_active = None, None, False

    def line(self, now_ms: int, chars: int) -> str | None:
        """The spinner, the time since Enter, the streamed tokens; after a turn, how long it took."""
        if self.started_ms is None:
            return None if self.took_ms is None else f"worked for {duration(self.took_ms)}"
        frame = FRAMES[(now_ms // FRAME_MS) % len(FRAMES)]
        streamed = chars - self.chars_at_start
        doing = "thinking" if self.waiting and streamed <= 0 else "working"
        words = [f"{frame} {doing}… {duration(now_ms - self.started_ms)}"]
        if streamed > 0:
            words.append(f"↓ {streamed_tokens(streamed)} tokens")
        words.append("Esc or Ctrl+C to interrupt")
        return " · ".join(words)
