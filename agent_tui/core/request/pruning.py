"""Lean context: old tool outputs leave the request, never the log (issue 24, reference 001's follow-up).

Before each step the runner lowers the projected history to request messages; this
module then replaces the outputs of older tool calls by a short stub that names the
tool, its input, the size removed and how to get the output again. Only the request
changes: the log, the projections and therefore the TUI keep every output.

Which outputs go is a pure function of the history, so the same history always gives
the same request. It is also built to keep the provider's prompt cache warm: a naive
"prune everything older than the last 40k tokens" moves the cut on every step, which
changes the request's prefix every step and defeats prefix caching. Here the cut moves
in blocks, with hysteresis:

- the *protected window* is the newest tool output worth ``protect_tokens`` (the lower
  watermark), plus every output of the newest assistant step (the model has not seen
  those yet), whatever their size;
- older eligible outputs above the cut accumulate, and only when they add up to at least
  ``minimum_tokens`` (the hysteresis step) does the cut jump, in one go, to the window's
  edge. Between jumps the pruned prefix, and so the cached prefix, stays byte-identical.

The cut is found by replaying the history one assistant step at a time, as if the rule
had run before every step of the session: that is what makes it stable (appending a step
can only move the cut forward, never re-expose or re-shuffle what was already a stub)
without storing any pruning state. A compaction checkpoint starts a new history, so the
replay starts there too.

What is never pruned: failed calls (their error text is short and explains why the model
changed course) and ``apply_patch`` results (a short summary of the files changed; the
patch itself is the call's input, and inputs are never pruned). Outputs no larger than a
stub would be are left alone: pruning them frees nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agent_tui.core.request.compaction_text import CHARS_PER_TOKEN, IMAGE_TOKENS
from agent_tui.core.settings.config_sections import ContextSettings
from agent_tui.llm import types as llm

KEEP_TOOLS = frozenset({"apply_patch"})
"""Tools whose output is never pruned (see the module docstring)."""

STUB_FLOOR_TOKENS = 100
"""An output this small or smaller stays: its stub would be about as long."""

_INPUT_SUMMARY_CHARS = 200


@dataclass(frozen=True)
class PruneRule:
    """How much recent tool output to protect, and the least a prune must free (both in tokens)."""

    protect_tokens: int = 40_000
    minimum_tokens: int = 20_000

    @classmethod
    def configured(cls, settings: ContextSettings) -> PruneRule | None:
        """The rule ``[context]`` asks for; None when pruning is off."""
        if not settings.prune:
            return None
        return cls(protect_tokens=settings.prune_protect_tokens, minimum_tokens=settings.prune_minimum_tokens)


@dataclass(frozen=True)
class Pruned:
    """The request's messages after pruning, and what went."""

    messages: list[llm.HistoryMessage]
    pruned_calls: int = 0
    freed_tokens: int = 0


@dataclass(frozen=True)
class _Output:
    message: int  # index into the history
    part: int  # index into that assistant turn's parts
    step: int  # which assistant turn (0-based, among turns with tool results)
    tokens: int
    eligible: bool


def prune(messages: Sequence[llm.HistoryMessage], rule: PruneRule | None) -> Pruned:
    """``messages`` with older tool outputs replaced by stubs; ``messages`` itself is never changed."""
    if rule is None:
        return Pruned(messages=list(messages))
    outputs = list(_outputs(messages))
    cut = _cut(outputs, rule)
    chosen = [output for output in outputs[:cut] if output.eligible]
    if not chosen:
        return Pruned(messages=list(messages))
    stubs: dict[int, dict[int, llm.ToolUse]] = {}
    freed = 0
    for output in chosen:
        message = messages[output.message]
        assert isinstance(message, llm.AssistantTurn)
        use = message.parts[output.part]
        assert isinstance(use, llm.ToolUse) and use.result is not None
        result = llm.ToolUseResult(ok=True, text=stub_text(use))
        stubs.setdefault(output.message, {})[output.part] = use.model_copy(update={"result": result})
        freed += output.tokens - _tokens(result)
    out: list[llm.HistoryMessage] = []
    for index, message in enumerate(messages):
        replaced = stubs.get(index)
        if replaced is None or not isinstance(message, llm.AssistantTurn):
            out.append(message)
        else:
            parts = [replaced.get(i, part) for i, part in enumerate(message.parts)]
            out.append(message.model_copy(update={"parts": parts}))
    return Pruned(messages=out, pruned_calls=len(chosen), freed_tokens=freed)


def _cut(outputs: list[_Output], rule: PruneRule) -> int:
    """How many of the oldest outputs lie above the cut, replaying the rule step by step."""
    cut = 0
    pending = 0  # eligible tokens between the cut and the protected window
    edge = 0  # outputs[:edge] are outside the protected window
    protected = 0  # tokens in the window, outputs[edge:step_end]
    end = 0
    while end < len(outputs):
        step = outputs[end].step
        step_end = end
        while step_end < len(outputs) and outputs[step_end].step == step:
            protected += outputs[step_end].tokens
            step_end += 1
        # Shrink the window from its old end while what stays still covers protect_tokens,
        # never past the start of the newest step.
        while edge < end and protected - outputs[edge].tokens >= rule.protect_tokens:
            protected -= outputs[edge].tokens
            if outputs[edge].eligible:
                pending += outputs[edge].tokens
            edge += 1
        if pending and pending >= rule.minimum_tokens:
            cut, pending = edge, 0
        end = step_end
    return cut


def _outputs(messages: Sequence[llm.HistoryMessage]) -> Iterator[_Output]:
    step = 0
    for index, message in enumerate(messages):
        if not isinstance(message, llm.AssistantTurn):
            continue
        found = False
        for part_index, part in enumerate(message.parts):
            if isinstance(part, llm.ToolUse) and part.result is not None:
                found = True
                tokens = _tokens(part.result)
                eligible = part.result.ok and part.name not in KEEP_TOOLS and tokens > STUB_FLOOR_TOKENS
                yield _Output(index, part_index, step, tokens, eligible)
        step += found


def _tokens(result: llm.ToolUseResult) -> int:
    return -(-len(result.text) // CHARS_PER_TOKEN) + len(result.images) * IMAGE_TOKENS


STUB_PREFIX = "[pruned from context: "


def stub_text(use: llm.ToolUse) -> str:
    """What the model reads instead of an old output: what it was, how big, how to get it back."""
    result = use.result or llm.ToolUseResult(ok=True, text="")
    size = f"{_tokens(result):,} tokens ({len(result.text):,} characters"
    images = len(result.images)
    size += f", {images} image{'s' if images != 1 else ''})" if images else ")"
    return (
        f"{STUB_PREFIX}the output of this {use.name} call ({input_summary(use.name, use.input)}), "
        f"{size}, was removed from the request to save space; the session log keeps it. "
        f"{_how_to_get_it_again(use.name)}]"
    )


def input_summary(name: str, data: dict[str, Any]) -> str:
    """The input a reader needs to recognise the call: the path read, the command run, else the JSON."""
    if name == "read" and isinstance(data.get("path"), str):
        text = f"path {data['path']}"
        if data.get("offset") or data.get("limit"):
            text += f", offset {data.get('offset') or 1}, limit {data.get('limit') or 'default'}"
    elif name == "bash" and isinstance(data.get("command"), str):
        text = f"command {data['command']!r}"
    else:
        text = f"input {json.dumps(data, ensure_ascii=False, sort_keys=True)}"
    return text if len(text) <= _INPUT_SUMMARY_CHARS else text[: _INPUT_SUMMARY_CHARS - 1] + "…"


def _how_to_get_it_again(name: str) -> str:
    if name == "read":
        return "Call read again with the same input if you need it (the file may have changed since)."
    if name == "bash":
        return "Run the command again if you need its output (mind any side effects it has)."
    return f"Call {name} again with the same input if you need it."
