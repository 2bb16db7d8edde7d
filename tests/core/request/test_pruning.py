"""Lean context: old tool outputs become stubs in the request, deterministically and in blocks."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.request.pruning import STUB_PREFIX, PruneRule, prune, stub_text
from agent_tui.llm import types as llm

PNG = llm.RequestImage(mime="image/png", data="iVBORw0KGgo=", path="shot.png")


def _use(n: int, name: str, size: int, *, ok: bool = True, images: int = 0) -> llm.ToolUse:
    data: dict[str, Any] = {"path": f"f{n}.py"} if name == "read" else {"command": f"cat f{n}"}
    result = llm.ToolUseResult(ok=ok, text=f"{n}:" + "x" * size, images=[PNG] * images)
    return llm.ToolUse(call_id=f"call_{n}", name=name, input=data, result=result)


def _step(*uses: llm.ToolUse) -> llm.AssistantTurn:
    return llm.AssistantTurn(model="m", parts=[llm.TextBlock(text="looking"), *uses])


_user = llm.UserTurn(parts=[llm.RequestText(text="go")])


@st.composite
def _steps(draw: st.DrawFn, at_least: int = 0) -> list[llm.HistoryMessage]:
    """A session: user turns, assistant steps with 0-3 tool calls of any size, reminders."""
    out: list[llm.HistoryMessage] = [_user]
    counter = 0
    for _ in range(draw(st.integers(at_least, 14))):
        kind = draw(st.sampled_from(["step", "step", "step", "user", "reminder"]))
        if kind == "user":
            out.append(_user)
        elif kind == "reminder":
            out.append(llm.SystemReminder(text="note"))
        else:
            uses = []
            for _ in range(draw(st.integers(0, 3))):
                counter += 1
                name = draw(st.sampled_from(["read", "bash", "apply_patch", "grep"]))
                size = draw(st.integers(0, 40_000))
                ok = draw(st.booleans() | st.just(True))
                images = draw(st.integers(0, 1)) if name == "read" else 0
                uses.append(_use(counter, name, size, ok=ok, images=images))
            out.append(_step(*uses))
    return out


_rules = st.builds(PruneRule, protect_tokens=st.integers(0, 12_000), minimum_tokens=st.integers(1, 12_000))


def _dump(messages: list[llm.HistoryMessage]) -> list[dict[str, Any]]:
    return [m.model_dump() for m in messages]


def _results(messages: list[llm.HistoryMessage]) -> list[llm.ToolUse]:
    return [
        part
        for m in messages
        if isinstance(m, llm.AssistantTurn)
        for part in m.parts
        if isinstance(part, llm.ToolUse) and part.result
    ]


def _tokens(use: llm.ToolUse) -> int:
    assert use.result is not None
    return -(-len(use.result.text) // 4) + 1600 * len(use.result.images)


def _is_stub(use: llm.ToolUse) -> bool:
    return use.result is not None and use.result.text.startswith(STUB_PREFIX)


@settings(max_examples=150, deadline=None)
@given(_steps(), _rules)
def test_same_input_same_request_and_the_input_is_never_changed(
    history: list[llm.HistoryMessage], rule: PruneRule
) -> None:
    before = _dump(history)
    first = prune(history, rule)
    assert _dump(history) == before
    again = prune([m.model_copy(deep=True) for m in history], rule)
    assert _dump(first.messages) == _dump(again.messages)
    assert (first.pruned_calls, first.freed_tokens) == (again.pruned_calls, again.freed_tokens)


@settings(max_examples=150, deadline=None)
@given(_steps(), _rules)
def test_only_tool_outputs_change_and_they_become_stubs(history: list[llm.HistoryMessage], rule: PruneRule) -> None:
    pruned = prune(history, rule)
    assert len(pruned.messages) == len(history)
    stubs = 0
    for old, new in zip(history, pruned.messages, strict=True):
        if not isinstance(old, llm.AssistantTurn):
            assert new == old
            continue
        assert isinstance(new, llm.AssistantTurn) and len(new.parts) == len(old.parts)
        for before, after in zip(old.parts, new.parts, strict=True):
            if before == after:
                continue
            assert isinstance(before, llm.ToolUse) and isinstance(after, llm.ToolUse)
            assert (after.call_id, after.name, after.input) == (before.call_id, before.name, before.input)
            assert before.result is not None and before.result.ok and before.name != "apply_patch"
            assert after.result == llm.ToolUseResult(ok=True, text=stub_text(before))
            assert _tokens(after) < _tokens(before)
            stubs += 1
    assert stubs == pruned.pruned_calls
    assert (pruned.freed_tokens > 0) == (stubs > 0)


@settings(max_examples=150, deadline=None)
@given(_steps(), _rules)
def test_the_protected_window_is_untouched(history: list[llm.HistoryMessage], rule: PruneRule) -> None:
    old, new = _results(history), _results(prune(history, rule).messages)
    newest_step = max(
        (i for i, m in enumerate(history) if isinstance(m, llm.AssistantTurn) and _results([m])), default=-1
    )
    newest = _results([history[newest_step]]) if newest_step >= 0 else []
    kept = 0
    for before, after in zip(reversed(old), reversed(new), strict=True):
        if kept >= rule.protect_tokens and before not in newest:
            break
        assert after == before
        kept += _tokens(before)


@settings(max_examples=150, deadline=None)
@given(_steps(at_least=1), _rules, st.data())
def test_the_pruned_prefix_is_stable_when_a_step_is_appended(
    history: list[llm.HistoryMessage], rule: PruneRule, data: st.DataObject
) -> None:
    """Cache friendliness: what was a stub stays one, and the request's prefix changes only by a
    block that frees at least ``minimum_tokens`` at once."""
    size = data.draw(st.integers(0, 40_000))
    longer = [*history, _step(_use(999, "read", size))]
    before = _results(prune(history, rule).messages)
    after = _results(prune(longer, rule).messages)[: len(before)]
    for was, now in zip(before, after, strict=True):
        assert not _is_stub(was) or now == was
    newly = [
        original
        for original, was, now in zip(_results(history), before, after, strict=True)
        if not _is_stub(was) and _is_stub(now)
    ]
    assert not newly or sum(_tokens(use) for use in newly) >= rule.minimum_tokens


def test_a_long_session_changes_its_prefix_in_few_blocks() -> None:
    """40 steps reading 8k-token files: the cut moves a handful of times, not on every step."""
    rule = PruneRule(protect_tokens=40_000, minimum_tokens=20_000)
    history: list[llm.HistoryMessage] = [_user]
    changes, previous = 0, 0
    for n in range(40):
        history.append(_step(_use(n, "read", 32_000)))
        pruned = prune(history, rule)
        changes += pruned.pruned_calls != previous
        previous = pruned.pruned_calls
        assert sum(_tokens(u) for u in _results(pruned.messages)) <= 40_000 + 20_000 + 8_001 + 200 * n
    assert previous > 30 and changes <= 14


def test_nothing_goes_below_the_minimum_or_when_off() -> None:
    history = [_user, _step(_use(1, "read", 20_000)), _step(_use(2, "read", 400))]
    assert prune(history, PruneRule(protect_tokens=0, minimum_tokens=6_000)).pruned_calls == 0
    assert prune(history, PruneRule(protect_tokens=0, minimum_tokens=5_000)).pruned_calls == 1
    assert prune(history, None).messages == history


def test_failed_calls_patches_and_small_outputs_are_kept() -> None:
    history = [
        _user,
        _step(_use(1, "read", 40_000, ok=False), _use(2, "apply_patch", 40_000), _use(3, "bash", 300)),
        _step(_use(4, "read", 10)),
    ]
    assert prune(history, PruneRule(protect_tokens=0, minimum_tokens=1)).pruned_calls == 0


def test_a_stub_says_what_went_and_how_to_get_it_back() -> None:
    read = _use(1, "read", 39_998, images=1).model_copy(update={"input": {"path": "src/big.py", "offset": 200}})
    bash = _use(2, "bash", 8_000)
    pruned = prune([_user, _step(read, bash), _step(_use(3, "read", 1))], PruneRule(0, 1))
    first, second = (use.result.text for use in _results(pruned.messages)[:2] if use.result)
    assert first == (
        "[pruned from context: the output of this read call (path src/big.py, offset 200, limit default), "
        "11,600 tokens (40,000 characters, 1 image), was removed from the request to save space; the session "
        "log keeps it. Call read again with the same input if you need it (the file may have changed since).]"
    )
    assert "bash call (command 'cat f2')" in second and "Run the command again" in second
    assert _results(pruned.messages)[0].result.images == []  # type: ignore[union-attr]
