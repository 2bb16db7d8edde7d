"""How big the next request is, part by part (``agent-tui context``, ``/context``).

Measures an :class:`~agent_tui.core.request.assembly.Assembly`, the very request
the runner would send, with the project's estimate (``budget``: ~4 characters a
token, an image 1600). The parts are the request cut into four: the system
prompt, the instructions (the checkpoint's baseline and the ``instructions.updated``
messages since), the tool definitions and the rest of the history. Each part's
tokens are the rounded running total's steps, so they add up to exactly the
estimate of the whole request. What pruning took out and what is left of the
context window are shown beside them; neither is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from agent_tui.core.log.records import MessageRecord
from agent_tui.core.request.assembly import Assembly
from agent_tui.core.request.budget import message_chars, request_chars, tokens_for, tools_chars
from agent_tui.core.request.compaction_text import active_history
from agent_tui.core.request.instructions import source_for
from agent_tui.llm import types as llm

SYSTEM, INSTRUCTIONS, TOOLS, HISTORY = "system", "instructions", "tools", "history"
_LABELS = {SYSTEM: "system prompt", TOOLS: "tool definitions"}


class SourceSize(BaseModel):
    """One instruction source as its baseline would render its applied value now."""

    model_config = ConfigDict(frozen=True)
    key: str
    tokens: int


class Part(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    tokens: int
    sources: list[SourceSize] = []
    """For ``instructions``: each source's applied value, sized alone (they need not add up to the part,
    which also holds the updates as they were said)."""


class ContextBreakdown(BaseModel):
    """What the next request would hold, in estimated tokens."""

    model_config = ConfigDict(frozen=True)
    session_id: str | None
    model: str
    agent: str
    parts: list[Part]
    total: int
    """The whole request: the parts add up to it."""
    pruned: int
    """Tokens of tool output pruning replaced by stubs (not sent)."""
    pruned_calls: int
    window: int | None
    """The model's context window; None when it is unknown."""
    reserve: int
    """Kept free for the answer: the larger of the output allowance and the compaction buffer."""
    free: int | None
    """``window - total - reserve``; negative when the next step would compact first."""
    estimate: str = "~4 characters a token, an image 1600"
    """How the tokens were counted: an estimate, not the provider's tokenizer."""

    def part(self, name: str) -> Part:
        return next(part for part in self.parts if part.name == name)

    def rows(self) -> list[tuple[str, int | None, str]]:
        """(label, tokens, share of the window) per line of the table ``context`` and ``/context`` show;
        an instruction source's label is indented and has no share (one that says nothing is left out);
        tokens None: unknown."""
        rows: list[tuple[str, int | None, str]] = []
        for part in self.parts:
            rows.append((_LABELS.get(part.name, part.name), part.tokens, self._share(part.tokens)))
            rows.extend((f"  {source.key}", source.tokens, "") for source in part.sources if source.tokens)
        rows.append(("total (sent)", self.total, self._share(self.total)))
        calls = f"pruned ({self.pruned_calls} tool output{'s' if self.pruned_calls != 1 else ''}, not sent)"
        rows.append((calls, self.pruned, ""))
        rows.append(("reserve", self.reserve, self._share(self.reserve)))
        rows.append(("free", self.free, self._share(self.free)))
        rows.append(("context window", self.window, self._share(self.window)))
        return rows

    def _share(self, tokens: int | None) -> str:
        if tokens is None or not self.window:
            return ""
        return f"{tokens / self.window:.1%}"


def measure(
    assembly: Assembly,
    history: Sequence[MessageRecord],
    applied: dict[str, Any],
    *,
    session_id: str | None,
    agent: str,
    window: int | None,
    reserve: int,
) -> ContextBreakdown:
    """``history``: the records the assembly's history was lowered from; ``applied``: the instruction
    values the baseline and the updates since have told the model."""
    request = assembly.request
    updates = sum(message_chars(llm.SystemReminder(text=text)) for text in _update_texts(history))
    chars = [
        (SYSTEM, len(assembly.system_prompt)),
        (INSTRUCTIONS, len(assembly.baseline) + updates),
        (TOOLS, tools_chars(request.tools)),
        (HISTORY, sum(message_chars(m) for m in request.messages) - updates),
    ]
    assert sum(size for _, size in chars) == request_chars(request)  # the parts are the whole request
    parts, running = [], 0
    for name, size in chars:
        before, running = running, running + size
        sources = _sources(applied) if name == INSTRUCTIONS else []
        parts.append(Part(name=name, tokens=tokens_for(running) - tokens_for(before), sources=sources))
    total = tokens_for(running)
    return ContextBreakdown(
        session_id=session_id,
        model=request.model,
        agent=agent,
        parts=parts,
        total=total,
        pruned=assembly.pruned.freed_tokens,
        pruned_calls=assembly.pruned.pruned_calls,
        window=window,
        reserve=reserve,
        free=None if window is None else window - total - reserve,
    )


def _update_texts(history: Sequence[MessageRecord]) -> list[str]:
    """The ``instructions.updated`` messages the lowered history still holds (after the last checkpoint)."""
    _, active = active_history(list(history))
    return [m.data["text"] for m in active if m.kind == "system" and m.data.get("text")]


def _sources(applied: dict[str, Any]) -> list[SourceSize]:
    out = []
    for key, value in applied.items():
        if value is not None:
            out.append(SourceSize(key=key, tokens=tokens_for(len(source_for(key).baseline(value)))))
    return out
