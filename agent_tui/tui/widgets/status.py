"""The status bar: model, agent, approval mode, context left, tokens, cost, state, location, title."""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich.text import Span, Text
from textual.widgets import Static

from agent_tui.tui.session_title import session_title
from agent_tui.tui.timings import COUNTDOWN_SLACK_S, countdown
from agent_tui.tui.transcript.model import Transcript
from agent_tui.vocab.clock import Clock


@dataclass
class StatusInputs:
    """Everything the bar shows that is not in the transcript."""

    location: str
    model: str | None = None
    agent: str | None = None
    approval: str = "ask"  # shown unless it is "ask"; full-auto in the theme's error colour
    context_window: int | None = None
    interrupting: bool = False
    background_asks: int = 0  # permission asks waiting in other sessions
    mcp: str | None = None  # ready MCP servers, e.g. "mcp 2" or "mcp 1/2"
    notice: str | None = None  # one line, e.g. what to configure


def session_state(transcript: Transcript | None, interrupting: bool, now_ms: int) -> str:
    """idle / running / retrying in Ns / compacting / waiting for permission / interrupting…"""
    if transcript is None or not transcript.is_active:
        return "idle"
    if interrupting:
        return "interrupting…"
    if transcript.asks:
        return "waiting for permission"
    facts = transcript.facts
    if facts.compacting:
        return "compacting"
    if facts.retry_at_ms is not None:
        return f"retrying in {countdown(facts.retry_at_ms, now_ms)[0]}s"
    return "running"


def human_tokens(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def short_path(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "/" and path.startswith(home) else path


class StatusBar(Static):
    def __init__(self, clock: Clock, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.transcript: Transcript | None = None
        self.inputs = StatusInputs(location=os.getcwd())
        self._shown: tuple[str, str, list[Span]] | None = None

    def on_mount(self) -> None:
        self._tick()

    def _tick(self) -> None:
        """Every second; during a retry, when its countdown's number changes (as the notice does)."""
        self.refresh_status()
        facts = self.transcript.facts if self.transcript is not None else None
        at_ms = facts.retry_at_ms if facts is not None else None
        delay = countdown(at_ms, self.clock.now_ms())[1] + COUNTDOWN_SLACK_S if at_ms is not None else 1.0
        self.set_timer(delay, self._tick)

    def show(self, transcript: Transcript | None, inputs: StatusInputs) -> None:
        self.transcript, self.inputs = transcript, inputs
        self.refresh_status()

    def refresh_status(self) -> None:
        """Repaint when the line changed: called on every transcript repaint, and an update would
        re-arrange the screen (the line may wrap to a second row) even when nothing changed."""
        line = self.line()
        shown = (line.plain, str(line.style), line.spans)  # Text's == leaves out its base style
        if shown != self._shown:
            self._shown = shown
            self.update(line)

    def _agent_style(self, agent: str) -> str:
        """The plan agent in the theme's warning colour: edits are off while it is selected."""
        from agent_tui.core.api import PLAN_AGENT

        if agent != PLAN_AGENT:
            return ""
        warning = getattr(self.app.current_theme, "warning", None) or "yellow"
        return f"bold {warning}"

    def _approval_style(self, approval: str) -> str:
        """``full-auto`` in the theme's error colour: nothing is asked; the other modes in bold."""
        if approval != "full-auto":
            return "bold"
        error = getattr(self.app.current_theme, "error", None) or "red"
        return f"bold {error}"

    def line(self) -> Text:
        t, inputs = self.transcript, self.inputs
        facts = t.facts if t is not None else None
        state = session_state(t, inputs.interrupting, self.clock.now_ms())
        model = (facts.model if facts and facts.model else None) or inputs.model or "no model"
        agent = (facts.agent if facts else None) or inputs.agent or "build"
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(f" {state} ", style="bold reverse" if state != "idle" else "bold")
        out.append(f" {model} · ")
        out.append(agent, style=self._agent_style(agent))
        if inputs.approval != "ask":
            out.append(" · ")
            out.append(inputs.approval, style=self._approval_style(inputs.approval))
        if facts is not None and inputs.context_window and facts.last_input_tokens:
            left = max(0, 100 - round(100 * facts.last_input_tokens / inputs.context_window))
            out.append(f" · {left}% context left")
        if facts is not None and (facts.input_tokens or facts.output_tokens):
            out.append(f" · ↑{human_tokens(facts.input_tokens)} ↓{human_tokens(facts.output_tokens)}")
            known = f"${facts.cost:.4f}" if facts.cost < 1 else f"${facts.cost:.2f}"
            if facts.unpriced_steps:  # an unknown price is said, never shown as $0
                out.append(f" · {known} + unknown" if facts.cost > 0 else " · cost unknown")
            elif facts.cost > 0:
                out.append(f" · {known}")
        if inputs.mcp:
            out.append(f" · {inputs.mcp}")
        if facts is not None and facts.queue_paused:
            out.append(" · queue paused", style="bold")
        if inputs.background_asks:
            out.append(f" · ⚑ {inputs.background_asks} waiting elsewhere", style="bold")
        out.append(f" · {short_path((facts.location if facts else None) or inputs.location)}")
        title = session_title(facts.title) if facts is not None else None
        if title:
            out.append(f" · {title}", style="italic")
        if inputs.notice:
            out.append(f"\n {inputs.notice}", style="bold")
        return out
