"""The request estimate: reported input tokens plus ~chars/4 for what came after."""

from __future__ import annotations

from typing import Any

from agent_tui.core.log.records import MessageRecord, ToolCallRecord
from agent_tui.core.request import budget
from agent_tui.core.request.builder import history_messages
from agent_tui.llm import types as llm


def _msg(mid: str, seq: int, kind: str, data: dict[str, Any]) -> MessageRecord:
    return MessageRecord(id=mid, session_id="s", seq=seq, kind=kind, data=data, created=0, updated=0)  # type: ignore[arg-type]


def _user(mid: str, seq: int, text: str) -> MessageRecord:
    return _msg(mid, seq, "user", {"prompt": [{"type": "text", "text": text}]})


def _answer(mid: str, seq: int, text: str, input_tokens: int | None) -> MessageRecord:
    usage = {"input_tokens": input_tokens, "output_tokens": 1} if input_tokens is not None else None
    return _msg(
        mid,
        seq,
        "assistant",
        {"parts": [{"type": "text", "text": text}], "state": "ended", "model": "m", "usage": usage},
    )


def _request(
    history: list[MessageRecord], *, system: str = "S" * 400, extra: list[Any] = (), calls: list[ToolCallRecord] = ()
) -> llm.Request:
    tools = [llm.ToolSpec(name="read", description="D" * 200)]
    return llm.Request(model="m", system=[system], messages=[*history_messages(history, calls), *extra], tools=tools)


def test_budget_reserves_the_larger_of_output_and_buffer() -> None:
    assert budget.budget(100_000, 8_000, 20_000) == 80_000
    assert budget.budget(100_000, 32_000, 20_000) == 68_000
    assert budget.budget(100_000, None, 20_000) == 80_000


def test_without_a_reported_request_everything_is_counted_by_characters() -> None:
    history = [_user("u1", 1, "x" * 4_000)]
    request = _request(history)
    estimate = budget.estimate(request, history, [])
    assert estimate == budget.tokens_for(budget.request_chars(request))
    assert 1_000 + 100 + 50 < estimate < 1_000 + 100 + 50 + 60  # prompt + system + tool definitions + JSON framing


def test_reported_tokens_are_the_base_for_what_came_after() -> None:
    history = [_user("u1", 1, "x" * 40_000), _answer("a1", 2, "y" * 400, 10_000), _user("u2", 3, "z" * 800)]
    request = _request(history, extra=[llm.SystemReminder(text="w" * 80)])
    estimate = budget.estimate(request, history, [])
    after = 400 + 800 + 80  # the answer, the newer prompt and the appended reminder, not the 40 000 characters
    assert 10_000 + after // 4 < estimate < 10_000 + after // 4 + 60


def test_a_report_from_before_the_checkpoint_is_not_used() -> None:
    history = [
        _user("u1", 1, "x" * 400),
        _answer("a1", 2, "old", 90_000),
        _msg("c1", 3, "compaction", {"state": "ended", "summary": "## Objective\nX", "recent": ""}),
        _user("u2", 4, "next"),
    ]
    request = _request(history)
    assert budget.estimate(request, history, []) == budget.tokens_for(budget.request_chars(request)) < 1_000


def test_after_a_checkpoint_the_newest_report_counts_and_appended_reminders_are_added() -> None:
    history = [
        _user("u1", 1, "x" * 400),
        _msg("c1", 2, "compaction", {"state": "ended", "summary": "## Objective\nX", "recent": ""}),
        _user("u2", 3, "next"),
        _answer("a2", 4, "y" * 40, 5_000),
    ]
    plain = budget.estimate(_request(history), history, [])
    reminded = budget.estimate(_request(history, extra=[llm.SystemReminder(text="w" * 400)]), history, [])
    assert 5_000 < plain < 5_000 + 40
    assert reminded - plain >= 100  # the 400-character reminder after the history


def test_an_appended_reminder_is_found_behind_steps_with_repeated_call_ids() -> None:
    """Providers may reuse a call id in every step; the full lowering renames the repeats."""
    history, calls = [], []
    for i in range(3):
        mid = f"a{i}"
        history += [
            _user(f"u{i}", 2 * i, f"prompt {i}"),
            _msg(
                mid,
                2 * i + 1,
                "assistant",
                {
                    "parts": [{"type": "tool", "call_id": "call_0"}],
                    "state": "ended",
                    "model": "m",
                    "usage": {"input_tokens": 1_000},
                },
            ),
        ]
        calls.append(
            ToolCallRecord(
                session_id="s",
                assistant_message_id=mid,
                call_id="call_0",
                seq=1,
                name="read",
                input={"path": "x"},
                state="success",
                output={"text": "out"},
                error=None,
                call_meta={},
                result_meta={},
                hosted=False,
            )
        )
    plain = budget.estimate(_request(history, calls=calls), history, calls)
    reminder = [llm.SystemReminder(text="w" * 400)]
    reminded = budget.estimate(_request(history, extra=reminder, calls=calls), history, calls)
    assert reminded - plain >= 100


def test_an_image_counts_as_the_tokens_a_provider_charges_not_its_base64() -> None:
    image = {"type": "image", "path": "shot.png", "mime": "image/png", "data": "A" * 4_000_000}
    history = [_msg("u1", 1, "user", {"prompt": [{"type": "text", "text": "look"}, image]})]
    estimate = budget.estimate(_request(history), history, [])
    assert 1_600 < estimate < 1_600 + 100 + 50 + 60  # one image, system, tool definitions, framing


def _read_step(i: int, chars: int, input_tokens: int) -> tuple[MessageRecord, ToolCallRecord]:
    mid = f"a{i}"
    usage = {"input_tokens": input_tokens, "output_tokens": 1}
    message = _msg(
        mid,
        2 * i + 1,
        "assistant",
        {"parts": [{"type": "tool", "call_id": "c"}], "state": "ended", "model": "m", "usage": usage},
    )
    call = ToolCallRecord(
        session_id="s",
        assistant_message_id=mid,
        call_id="c",
        seq=2 * i + 1,
        name="read",
        input={"path": f"f{i}.py"},
        state="success",
        output={"text": "x" * chars},
        error=None,
        call_meta={},
        result_meta={},
        hosted=False,
    )
    return message, call


def test_what_pruning_removed_since_the_last_reported_step_is_not_counted() -> None:
    """The newest step reported its request as pruned then; a prune that happens now frees more."""
    from agent_tui.core.request.pruning import PruneRule, prune

    rule = PruneRule(protect_tokens=0, minimum_tokens=10_000)
    steps = [_read_step(i, 40_000, 1_000 + 10_000 * i) for i in range(3)]
    history = [_user("u", 0, "go"), *(message for message, _ in steps)]
    calls = [call for _, call in steps]
    whole = _request(history, calls=calls)
    pruned = whole.model_copy(update={"messages": prune(whole.messages, rule).messages})
    assert prune(whole.messages, rule).pruned_calls == 2
    before = budget.estimate(pruned, history, calls)
    after = budget.estimate(pruned, history, calls, rule)
    # The anchor (step 2) was sent with step 0 pruned already (minimum reached at step 1): only
    # step 1's output is freed since, less its stub.
    assert 9_800 < before - after < 10_000
