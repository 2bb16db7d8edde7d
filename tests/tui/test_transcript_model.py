"""The pure transcript fold: durable log + live deltas -> ordered blocks."""

from __future__ import annotations

from agent_tui.core.api import events as ev
from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.model import Transcript, fold
from agent_tui.tui.transcript_blocks import (
    CompactionBlock,
    ErrorBlock,
    InstructionBlock,
    RetryBlock,
    TextBlock,
    ToolBlock,
    ToolState,
    UserBlock,
)
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import TOOL_INTERRUPTED, CompactionReason, Delivery, InterruptReason, PermissionReply
from agent_tui.vocab.tool_output import ToolOutput
from tests.fakes.logs import LogBuilder


def shape(t: Transcript) -> list[tuple]:
    """A comparable picture of what is on screen."""
    out = []
    for b in t.blocks:
        match b:
            case UserBlock(text=text):
                out.append(("user", text))
            case TextBlock(text=text, reasoning=reasoning):
                out.append(("reasoning" if reasoning else "text", text))
            case ToolBlock():
                out.append(("tool", b.name, b.summary, b.shown_state.value, b.output, b.error))
            case InstructionBlock(text=text):
                out.append(("instructions", text))
            case CompactionBlock():
                out.append(("compaction", b.shown_state.value, b.summary, b.error))
            case ErrorBlock(error_type=kind, message=message):
                out.append(("error", kind, message))
            case RetryBlock(attempt=attempt, at_ms=at_ms):
                out.append(("retry", attempt, at_ms, b.live))
    return out


def test_a_simple_exchange_folds_to_user_then_text() -> None:
    log = LogBuilder().created()
    log.turn("hello there", "Hi! How can I help?")
    t = fold(log.events)
    assert shape(t) == [("user", "hello there"), ("text", "Hi! How can I help?")]
    assert t.facts.title == "hello there"
    assert t.facts.input_tokens == 100 and t.facts.output_tokens == 20
    assert t.pending == {}


def test_tools_reasoning_and_failures_in_order() -> None:
    log = LogBuilder().created()
    log.add(ev.ExecutionStarted())
    log.prompt("fix it")
    amid = log.step("msg_a1")
    log.text(amid, "thinking hard", reasoning=True)
    log.text(amid, "Let me look.")
    log.tool(amid, "c1", "bash", {"command": "ls -la\n  src"}, output="a\nb", ms=1500)
    log.tool(amid, "c2", "read", {"path": "missing.py"}, error="no such file")
    log.end_step(amid)
    t = fold(log.events)
    assert shape(t) == [
        ("user", "fix it"),
        ("reasoning", "thinking hard"),
        ("text", "Let me look."),
        ("tool", "bash", "ls -la src", "ok", "a\nb", None),
        ("tool", "read", "missing.py", "failed", "", "no such file"),
    ]
    bash = t.get(BlockKey.tool("msg_a1", "c1"))
    assert isinstance(bash, ToolBlock) and bash.duration_ms == 1500


def test_apply_patch_summary_names_files_and_keeps_patch() -> None:
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n*** End Patch"
    log = LogBuilder().created()
    amid = log.step("msg_a1")
    log.tool(amid, "c1", "apply_patch", {"patch": patch})
    block = fold(log.events).get(BlockKey.tool("msg_a1", "c1"))
    assert isinstance(block, ToolBlock)
    assert block.summary == "a.py, b.py" and block.patch == patch


def test_open_step_and_running_tool_after_crash_are_interrupted_history() -> None:
    log = LogBuilder().created()
    log.add(ev.ExecutionStarted())
    log.prompt("run tests")
    amid = log.step("msg_a1")
    log.add(ev.TextStarted(assistant_message_id=amid, ordinal=0))
    log.tool(amid, "c1", "bash", {"command": "pytest"}, output=None)
    t = fold(log.events, is_active=False)
    tool = t.get(BlockKey.tool("msg_a1", "c1"))
    assert isinstance(tool, ToolBlock)
    assert tool.state is ToolState.RUNNING and tool.shown_state is ToolState.INTERRUPTED
    # The same log while the coordinator says it runs: live.
    live = fold(log.events, is_active=True)
    assert live.get(BlockKey.tool("msg_a1", "c1")).shown_state is ToolState.RUNNING  # type: ignore[union-attr]
    live.set_active(False)
    assert live.get(BlockKey.tool("msg_a1", "c1")).shown_state is ToolState.INTERRUPTED  # type: ignore[union-attr]


def test_stale_sweep_shows_interrupted_not_failed() -> None:
    log = LogBuilder().created()
    amid = log.step("msg_a1")
    log.tool(amid, "c1", "bash", {"command": "sleep 100"}, error=TOOL_INTERRUPTED, error_type="tool.stale")
    log.add(ev.StepFailed(assistant_message_id=amid, error=ErrorInfo(type="aborted", message="interrupted")))
    t = fold(log.events, is_active=True)
    assert shape(t)[0][3] == "interrupted"
    assert shape(t)[1] == ("error", "aborted", "interrupted")


def test_an_interrupted_call_keeps_what_it_printed_as_its_output() -> None:
    log = LogBuilder().created()
    amid = log.step("msg_a1")
    log.add(ev.ToolCalled(assistant_message_id=amid, call_id="c1", name="bash", input={"command": "make"}))
    interrupted = ErrorInfo(type="aborted", message=TOOL_INTERRUPTED)
    meta = {"partial_output": "cc -c a.c\ncc -c b.c\n"}
    log.add(ev.ToolFailed(assistant_message_id=amid, call_id="c1", error=interrupted, result_meta=meta))
    block = fold(log.events).get(BlockKey.tool(amid, "c1"))
    assert isinstance(block, ToolBlock)
    assert block.shown_state is ToolState.INTERRUPTED and block.output == "cc -c a.c\ncc -c b.c\n"


def test_retry_countdown_is_cleared_by_the_next_step() -> None:
    log = LogBuilder().created()
    log.add(ev.ExecutionStarted())
    amid = log.step("msg_a1")
    err = ErrorInfo(type="provider.rate-limit", message="slow down")
    log.add(ev.RetryScheduled(assistant_message_id=amid, attempt=1, at_ms=1_700_000_002_000, error=err))
    t = fold(log.events, is_active=True)
    assert shape(t) == [("retry", 1, 1_700_000_002_000, True)]
    assert t.facts.retry_at_ms == 1_700_000_002_000
    t.apply(log.add(ev.StepStarted(assistant_message_id=amid, agent="build", model="m", attempt=2)))
    assert shape(t) == [] and BlockKey.retry("msg_a1") in t.removed and t.facts.retry_at_ms is None


def test_scheduled_retry_in_a_dead_log_is_not_a_countdown() -> None:
    log = LogBuilder().created()
    amid = log.step("msg_a1")
    err = ErrorInfo(type="provider.internal", message="500")
    log.add(ev.RetryScheduled(assistant_message_id=amid, attempt=2, at_ms=5, error=err))
    assert shape(fold(log.events, is_active=False)) == [("retry", 2, 5, False)]
    log.add(ev.ExecutionInterrupted(reason=InterruptReason.SHUTDOWN))
    t = fold(log.events, is_active=True)  # even a live session: that wait ended
    assert shape(t) == [("retry", 2, 5, False)]


def test_compaction_divider_lifecycle() -> None:
    log = LogBuilder().created()
    log.add(ev.CompactionAdmitted(input_id="inp_c1"))
    t = fold(log.events, is_active=True)
    assert shape(t) == [("compaction", "queued", "", None)]
    t.apply(log.add(ev.CompactionStarted(message_id="msg_c1", reason=CompactionReason.MANUAL, input_id="inp_c1")))
    assert shape(t) == [("compaction", "running", "", None)] and t.facts.compacting
    t.apply_delta(ev.CompactionDelta(session_id="ses_test", message_id="msg_c1", delta="## Objective\n"))
    assert shape(t) == [("compaction", "running", "## Objective\n", None)]
    t.apply(
        log.add(
            ev.CompactionEnded(
                message_id="msg_c1",
                reason=CompactionReason.MANUAL,
                summary="## Objective\nall",
                recent="",
                input_id="inp_c1",
            )
        )
    )
    assert shape(t) == [("compaction", "done", "## Objective\nall", None)] and not t.facts.compacting
    assert shape(t) == shape(fold(log.events))


def test_a_divider_queued_while_idle_runs_live_once_active() -> None:
    log = LogBuilder().created()
    log.add(ev.CompactionAdmitted(input_id="inp_c1"))
    t = fold(log.events, is_active=False)
    t.set_active(True)
    t.apply(log.add(ev.CompactionStarted(message_id="msg_c1", reason=CompactionReason.MANUAL, input_id="inp_c1")))
    assert shape(t) == [("compaction", "running", "", None)]


def test_auto_compaction_failure_and_dead_running_compaction() -> None:
    log = LogBuilder().created()
    log.add(ev.CompactionStarted(message_id="msg_c1", reason=CompactionReason.AUTO))
    assert shape(fold(log.events)) == [("compaction", "interrupted", "", None)]
    err = ErrorInfo(type="provider.internal", message="boom")
    log.add(ev.CompactionFailed(message_id="msg_c1", reason=CompactionReason.AUTO, error=err))
    assert shape(fold(log.events)) == [("compaction", "failed", "", "boom")]


def test_pending_inputs_in_admission_order_until_promoted_or_withdrawn() -> None:
    log = LogBuilder().created()
    a = log.prompt("first queued", delivery="queue", promote=False)
    b = log.prompt("a steer", delivery="steer", promote=False)
    c = log.prompt("second queued", delivery="queue", promote=False)
    t = fold(log.events)
    assert [(p.text, p.delivery.value) for p in t.pending_inputs] == [
        ("first queued", "queue"),
        ("a steer", "steer"),
        ("second queued", "queue"),
    ]
    assert t.last_queued().input_id == c  # type: ignore[union-attr]
    t.apply(log.add(ev.PromptPromoted(input_id=b)))
    t.apply(log.add(ev.PromptWithdrawn(input_id=a)))
    assert [p.input_id for p in t.pending_inputs] == [c]
    assert shape(t) == [("user", "a steer")]


def test_instruction_update_and_execution_failure() -> None:
    log = LogBuilder().created()
    log.add(ev.InstructionsUpdated(message_id="msg_i1", text="AGENTS.md changed"))
    log.add(ev.ExecutionFailed(error=ErrorInfo(type="provider.auth", message="bad key")))
    assert shape(fold(log.events)) == [("instructions", "AGENTS.md changed"), ("error", "provider.auth", "bad key")]


def test_permission_asks_open_until_replied() -> None:
    log = LogBuilder().created()
    log.add(ev.PermissionAsked(request_id="perm_1", call_id="c1", action="bash", resources=["rm -rf build"]))
    t = fold(log.events)
    assert list(t.asks) == ["perm_1"] and t.asks["perm_1"].resources == ["rm -rf build"]
    t.apply(log.add(ev.PermissionReplied(request_id="perm_1", reply=PermissionReply.ONCE)))
    assert t.asks == {}


def test_a_tool_that_waited_for_permission_shows_how_long_it_ran() -> None:
    log = LogBuilder().created()
    amid = log.step("msg_a1")
    log.add(ev.ToolCalled(assistant_message_id=amid, call_id="c1", name="bash", input={"command": "make"}))
    log.add(ev.PermissionAsked(request_id="perm_1", assistant_message_id=amid, call_id="c1", action="bash"), after_ms=5)
    log.add(ev.PermissionReplied(request_id="perm_1", reply=PermissionReply.ONCE), after_ms=9_000)  # the person thinks
    log.add(ev.ToolSucceeded(assistant_message_id=amid, call_id="c1", output=ToolOutput(text="ok")), after_ms=300)
    tool = fold(log.events).get(BlockKey.tool(amid, "c1"))
    assert isinstance(tool, ToolBlock) and tool.duration_ms == 300


def test_live_deltas_then_durable_events_equal_the_log_alone() -> None:
    """Closing and reopening a session shows exactly the same blocks."""
    sid = "ses_test"
    log = LogBuilder(session_id=sid).created()
    live = fold(log.events, is_active=True)

    def durable(event: ev.DurableEvent) -> None:
        live.apply(log.add(event))

    durable(ev.ExecutionStarted())
    log.prompt("go")
    for stored in log.events[-2:]:
        live.apply(stored)
    durable(ev.StepStarted(assistant_message_id="m1", agent="build", model="x"))
    durable(ev.ReasoningStarted(assistant_message_id="m1", ordinal=0))
    live.apply_delta(ev.ReasoningDelta(session_id=sid, assistant_message_id="m1", ordinal=0, delta="hm"))
    durable(ev.ReasoningEnded(assistant_message_id="m1", ordinal=0, text="hmm."))
    # A delta can arrive before its durable start: the block appears, then is confirmed.
    live.apply_delta(ev.TextDelta(session_id=sid, assistant_message_id="m1", ordinal=0, delta="Hel"))
    durable(ev.TextStarted(assistant_message_id="m1", ordinal=0))
    live.apply_delta(ev.TextDelta(session_id=sid, assistant_message_id="m1", ordinal=0, delta="lo"))
    assert live.get(BlockKey.fragment("m1", 0)).text == "Hello"  # type: ignore[union-attr]
    durable(ev.TextEnded(assistant_message_id="m1", ordinal=0, text="Hello."))
    live.apply_delta(ev.ToolInputStarted(session_id=sid, assistant_message_id="m1", index=0, name="bash"))
    live.apply_delta(ev.ToolInputDelta(session_id=sid, assistant_message_id="m1", index=0, delta='{"comm'))
    assert live.get(BlockKey.draft("m1", 0)).summary == '{"comm'  # type: ignore[union-attr]
    live.apply_delta(ev.ToolInputDelta(session_id=sid, assistant_message_id="m1", index=0, delta='and": "echo h'))
    assert live.get(BlockKey.draft("m1", 0)).summary == "echo h"  # type: ignore[union-attr]
    durable(ev.ToolCalled(assistant_message_id="m1", call_id="c1", name="bash", input={"command": "echo hi"}))
    assert live.get(BlockKey.draft("m1", 0)) is None and BlockKey.draft("m1", 0) in live.removed
    live.apply_delta(ev.ToolOutputDelta(session_id=sid, assistant_message_id="m1", call_id="c1", delta="h"))
    assert live.get(BlockKey.tool("m1", "c1")).live_output == "h"  # type: ignore[union-attr]
    durable(ev.ToolSucceeded(assistant_message_id="m1", call_id="c1", output=ToolOutput(text="hi")))
    # A late delta for a settled fragment changes nothing.
    assert live.apply_delta(ev.TextDelta(session_id=sid, assistant_message_id="m1", ordinal=0, delta="x")) is None
    durable(ev.StepEnded(assistant_message_id="m1", finish="stop"))
    durable(ev.ExecutionSucceeded())
    live.set_active(False)
    assert (
        shape(live)
        == shape(fold(log.events))
        == [
            ("user", "go"),
            ("reasoning", "hmm."),
            ("text", "Hello."),
            ("tool", "bash", "echo hi", "ok", "hi", None),
        ]
    )


def test_unfinished_tool_draft_disappears_when_the_step_closes() -> None:
    sid = "ses_test"
    log = LogBuilder(session_id=sid).created()
    t = fold(log.events, is_active=True)
    t.apply(log.add(ev.StepStarted(assistant_message_id="m1", agent="build", model="x")))
    t.apply_delta(ev.ToolInputStarted(session_id=sid, assistant_message_id="m1", index=0, name="bash"))
    t.apply(log.add(ev.StepFailed(assistant_message_id="m1", error=ErrorInfo(type="aborted", message="stop"))))
    assert shape(t) == [("error", "aborted", "stop")] == shape(fold(log.events))


def test_events_at_or_below_head_are_ignored_and_versions_move() -> None:
    log = LogBuilder().created()
    log.turn("a", "b")
    t = fold(log.events)
    version = t.version
    for stored in log.events:
        t.apply(stored)
    assert t.version == version and len(t.blocks) == 2
    block = t.blocks[1]
    before = block.version
    t.set_active(True)
    assert block.version == before  # a settled block does not repaint on liveness changes


def test_segments_folded_newest_first_then_prepended_equal_the_whole_log() -> None:
    from agent_tui.tui.transcript.records import PendingInput, SessionFacts

    log = LogBuilder().created()
    early = log.prompt("queued long ago", delivery="queue", promote=False)
    for n in range(3):
        log.turn(f"q{n}", f"a{n}")
    log.add(ev.CompactionAdmitted(input_id="inp_c"))
    boundary = len(log.events) + 1
    log.add(ev.ExecutionStarted())
    log.add(ev.CompactionStarted(message_id="msg_c", reason=CompactionReason.MANUAL, input_id="inp_c"))
    log.add(
        ev.CompactionEnded(message_id="msg_c", reason=CompactionReason.MANUAL, summary="s", recent="", input_id="inp_c")
    )
    log.add(ev.PromptPromoted(input_id=early))
    amid = log.step("msg_last")
    log.text(amid, "last answer")
    log.end_step(amid, input_tokens=7, output_tokens=3)
    log.add(ev.ExecutionSucceeded())
    whole = fold(log.events)

    newest = Transcript()
    row = whole.facts
    facts = SessionFacts(
        title=row.title,
        location=row.location,
        agent=row.agent,
        model=row.model,
        input_tokens=row.input_tokens,
        output_tokens=row.output_tokens,
        cost=row.cost,
    )
    newest.seed(
        boundary,
        facts,
        len(log.events),
        [PendingInput(early, "queued long ago", Delivery.QUEUE, 2)],
        [("inp_c", boundary - 1)],
    )
    for stored in log.events[boundary - 1 :]:
        newest.apply(stored)
    # Before the older segment arrives: the promoted input has its text (from the inbox) and nothing is pending.
    assert newest.pending == {} and shape(newest)[-2:] == [("user", "queued long ago"), ("text", "last answer")]
    assert newest.facts.input_tokens == whole.facts.input_tokens  # no double counting

    older = Transcript()
    older._counted_seq = boundary
    for stored in log.events[: boundary - 1]:
        older.apply(stored)
    fresh = newest.prepend(older)
    assert [b.key for b in fresh][:2] == [BlockKey.user("msg_user2"), BlockKey.fragment("msg_asst2", 0)]
    assert shape(newest) == shape(whole) and newest.start_seq == 1


def test_long_streams_keep_every_text_delta_and_a_bounded_live_output() -> None:
    sid = "ses_test"
    log = LogBuilder(session_id=sid).created()
    t = fold(log.events, is_active=True)
    t.apply(log.add(ev.StepStarted(assistant_message_id="m1", agent="build", model="x")))
    t.apply(log.add(ev.TextStarted(assistant_message_id="m1", ordinal=0)))
    t.apply(log.add(ev.ToolCalled(assistant_message_id="m1", call_id="c1", name="bash", input={"command": "yes"})))
    for _ in range(100_000):  # 400 KB of text and 1.2 MB of command output
        t.apply_delta(ev.TextDelta(session_id=sid, assistant_message_id="m1", ordinal=0, delta="abcd"))
        t.apply_delta(
            ev.ToolOutputDelta(session_id=sid, assistant_message_id="m1", call_id="c1", delta="y\nyy\nyyy\n"[:12])
        )
    assert len(t.get(BlockKey.fragment("m1", 0)).text) == 400_000  # type: ignore[union-attr]
    tool = t.get(BlockKey.tool("m1", "c1"))
    assert len(tool.live_output) == ToolBlock.LIVE_OUTPUT_CHARS and tool.live_output.endswith("yyy\n")  # type: ignore[union-attr]


def test_a_patch_shows_while_the_model_writes_it() -> None:
    sid = "ses_test"
    log = LogBuilder(session_id=sid).created()
    t = fold(log.events, is_active=True)
    t.apply(log.add(ev.StepStarted(assistant_message_id="m1", agent="build", model="x")))
    t.apply_delta(ev.ToolInputStarted(session_id=sid, assistant_message_id="m1", index=0, name="apply_patch"))
    for piece in ['{"patch": "*** Begin Patch\\n*** Upd', "ate File: src/a.py\\n@@\\n-old\\n+ne", "w\\n"]:
        t.apply_delta(ev.ToolInputDelta(session_id=sid, assistant_message_id="m1", index=0, delta=piece))
    draft = t.get(BlockKey.draft("m1", 0))
    assert isinstance(draft, ToolBlock) and draft.state is ToolState.INPUT
    assert draft.patch == "*** Begin Patch\n*** Update File: src/a.py\n@@\n-old\n+new\n"
    assert draft.summary == "src/a.py"


def test_a_call_no_snapshot_covers_says_so_on_its_block() -> None:
    log = LogBuilder().created()
    log.prompt("edit it")
    amid = log.step("msg_a1")
    log.add(ev.ToolCalled(assistant_message_id=amid, call_id="c1", name="bash", input={"command": "make"}))
    log.add(ev.WorkspaceSnapshotted(assistant_message_id=amid, call_id="c1", error="cannot set up the snapshot store"))
    log.add(ev.ToolCalled(assistant_message_id=amid, call_id="c2", name="bash", input={"command": "ls"}))
    log.add(ev.WorkspaceSnapshotted(assistant_message_id=amid, call_id="c2", snapshot_id="abc"))
    t = fold(log.events)
    first, second = t.get(BlockKey.tool("msg_a1", "c1")), t.get(BlockKey.tool("msg_a1", "c2"))
    assert isinstance(first, ToolBlock) and first.unsnapshotted == "cannot set up the snapshot store"
    assert isinstance(second, ToolBlock) and second.unsnapshotted is None


def test_hook_runs_fold_to_one_small_block_each_where_they_ran() -> None:
    from agent_tui.tui.transcript_blocks import HookBlock
    from agent_tui.tui.widgets.block_widgets import HookNote
    from agent_tui.vocab.clock import ManualClock

    log = LogBuilder().created()
    log.add(ev.HookRan(hook_event="user_prompt", command="ctx.sh", outcome="ok", context="ctx", message_id="msg_h"))
    log.prompt("fix it")
    log.add(ev.HookRan(hook_event="pre_tool", command="guard.sh", outcome="blocked", message="no rm", tool_name="bash"))
    t = fold(log.events)
    hooks = [b for b in t.blocks if isinstance(b, HookBlock)]
    assert [(b.event, b.outcome, b.context) for b in hooks] == [
        ("user_prompt", "ok", "ctx"),
        ("pre_tool", "blocked", None),
    ]
    assert [type(b).__name__ for b in t.blocks] == ["HookBlock", "UserBlock", "HookBlock"]
    lines = [HookNote(b, ManualClock())._line().plain for b in hooks]
    assert lines == ["· user_prompt hook ran: ctx.sh", "⊘ pre_tool hook (bash) blocked: no rm"]
