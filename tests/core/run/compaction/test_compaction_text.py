"""Units, the recent cut and the summary shape, on projected rows."""

from __future__ import annotations

from typing import Any

from agent_tui.core.log.records import MessageRecord, ToolCallRecord
from agent_tui.core.request import compaction_text as text


def _msg(mid: str, seq: int, kind: str, data: dict[str, Any]) -> MessageRecord:
    return MessageRecord(id=mid, session_id="ses_1", seq=seq, kind=kind, data=data, created=0, updated=0)  # type: ignore[arg-type]


def _user(mid: str, seq: int, body: str) -> MessageRecord:
    return _msg(mid, seq, "user", {"prompt": [{"type": "text", "text": body}], "delivery": "steer"})


def _step(mid: str, seq: int, *parts: dict[str, Any]) -> MessageRecord:
    return _msg(mid, seq, "assistant", {"parts": list(parts), "state": "ended", "model": "m"})


def _call(mid: str, call_id: str, output: str) -> ToolCallRecord:
    return ToolCallRecord(
        session_id="ses_1",
        assistant_message_id=mid,
        call_id=call_id,
        seq=1,
        name="echo",
        input={"text": output},
        state="success",
        output={"text": output},
        error=None,
        call_meta={},
        result_meta={},
        hosted=False,
    )


def test_missing_headings_are_added_as_none_in_order() -> None:
    out = text.enforce_headings("## Next Move\nrun the tests\n\n## Objective\nfix the parser\n## Extra\nkept")
    assert out == (
        "## Objective\nfix the parser\n### Extra\nkept\n\n## Important Details\n(none)\n\n"
        "## Work State\n(none)\n\n## Next Move\nrun the tests"
    )
    # exactly the four top-level headings; an unknown one becomes a sub-heading of the section before it
    assert [line for line in out.splitlines() if line.startswith("## ")] == [f"## {h}" for h in text.HEADINGS]


def test_summary_without_any_heading_is_kept_under_important_details() -> None:
    out = text.enforce_headings("We changed parser.py and the tests pass.")
    assert out.split("\n\n") == [
        "## Objective\n(none)",
        "## Important Details\nWe changed parser.py and the tests pass.",
        "## Work State\n(none)",
        "## Next Move\n(none)",
    ]


def test_headings_tolerate_markdown_variants() -> None:
    out = text.enforce_headings("# objective\nA\n### **Work State**:\n- Completed: x\n## Important details\nB")
    assert "## Objective\nA" in out and "## Work State\n- Completed: x" in out and "## Important Details\nB" in out


def test_recent_is_a_bounded_suffix_of_whole_steps() -> None:
    history = [
        _user("u1", 1, "start"),
        _step("a1", 2, {"type": "text", "text": "looking"}, {"type": "tool", "call_id": "c1"}),
        _step("a2", 3, {"type": "reasoning", "text": "secret thoughts"}, {"type": "tool", "call_id": "c1"}),
        _step("a3", 4, {"type": "tool", "call_id": "c1"}),
    ]
    calls = [_call("a1", "c1", "x" * 900), _call("a2", "c1", "beta result"), _call("a3", "c1", "gamma result")]
    plan = text.plan(history, calls, keep_tokens=60)  # 240 characters
    assert plan is not None
    assert [u.text.split("\n")[0] for u in plan.older] == ["User:", "Assistant:"]
    assert len(plan.recent) == 2 and len(plan.recent_text) <= 240
    # each call sits with its own result; reasoning never becomes text
    assert plan.recent_text.count("[tool call echo") == 2 and plan.recent_text.count("[tool result ok]") == 2
    assert "beta result" in plan.recent_text and "gamma result" in plan.recent_text
    assert "secret thoughts" not in plan.recent_text and "x" * 900 not in plan.recent_text


def test_older_part_is_never_empty_and_previous_checkpoint_is_carried() -> None:
    history = [
        _user("u1", 1, "old"),
        _msg("c1", 2, "compaction", {"state": "ended", "summary": "## Objective\nold", "recent": "User:\nold"}),
        _user("u2", 3, "new"),
        _step("a1", 4, {"type": "text", "text": "fine"}),
    ]
    plan = text.plan(history, [], keep_tokens=8_000)
    assert plan is not None and plan.previous_summary == "## Objective\nold" and plan.previous_recent == "User:\nold"
    assert [u.text for u in plan.older] == ["User:\nnew"] and plan.recent_text == "Assistant:\nfine"
    material = text.summary_material(plan, None)
    assert "<previous-checkpoint>\n## Objective\nold" in material and "User:\nnew" in material


def test_nothing_to_compact() -> None:
    assert text.plan([], [], 100) is None
    failed_empty = _msg("a1", 1, "assistant", {"parts": [], "state": "failed", "error": {"type": "x", "message": "y"}})
    assert text.plan([failed_empty], [], 100) is None


def test_summary_material_drops_oldest_units_first_and_clips_tool_output() -> None:
    history = [_user(f"u{i}", i, f"prompt {i} " + "y" * 200) for i in range(1, 11)]
    history.append(_step("a1", 11, {"type": "tool", "call_id": "c1"}))
    plan = text.plan(history, [_call("a1", "c1", "z" * 50_000)], keep_tokens=0)
    assert plan is not None
    material = text.summary_material(plan, max_chars=7_000)
    assert len(material) <= 7_000
    assert "earlier messages omitted" in material and "prompt 1 " not in material
    assert "characters omitted" in material  # the 50 000-character result was clipped


def test_checkpoint_text_has_summary_then_recent() -> None:
    out = text.checkpoint_text("## Objective\nX", "User:\nhi")
    assert out.index("## Objective") < out.index("Recent Context") < out.index("User:\nhi")
    assert "Recent Context" not in text.checkpoint_text("## Objective\nX", "")
