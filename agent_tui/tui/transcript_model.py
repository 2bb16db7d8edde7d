"""Fold a session's durable log plus live deltas into an ordered list of blocks.

Pure Python (no Textual) so it is tested with hand-built event lists. Durable
events decide *what* blocks exist and their final values; live deltas only fill
in text while a fragment, tool or compaction is open, and the matching durable
``ended``/settled event replaces what they filled. So reopening a session (a
fold of the log alone) shows exactly the blocks that were on screen.

Whether anything is running comes only from :meth:`Transcript.set_active` (the
coordinator's ``active()``); an open step, running tool or scheduled retry in a
log that is not active is shown as interrupted history.

Durable events fold by family (``_on_session``, ``_on_inbox``, ``_on_tool``, …;
``_folders`` maps each event class to its family's handler), and every block is
found again by its typed :class:`BlockKey`.

The event models are imported inside the functions that fold: this module is
on the path to the first frame (a new, empty transcript), the models' module
imports pydantic (~60 ms), and nothing is folded before the core is open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from agent_tui.humanize import byte_size
from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript_blocks import (
    Block,
    CompactionBlock,
    CompactionState,
    ErrorBlock,
    InstructionBlock,
    RetryBlock,
    TextBlock,
    ToolBlock,
    ToolState,
    UserBlock,
)
from agent_tui.vocab.kinds import Delivery, ErrorType
from agent_tui.vocab.titles import prompt_title

if TYPE_CHECKING:
    from agent_tui.core.api import RewindState
    from agent_tui.core.api import events as ev

_B = TypeVar("_B", bound=Block)


@dataclass
class PendingInput:
    input_id: str
    text: str
    delivery: Delivery
    seq: int
    attachments: str = ""
    prompt: list = field(default_factory=list)  # the parts as admitted (re-sent as they are by "steer")
    rank: int | None = None  # its place after a reorder (as the store's ``queue_rank``)

    @property
    def place(self) -> int:
        return self.rank if self.rank is not None else self.seq


def chips(prompt: list) -> str:
    """The attachment chips of a prompt: ``📎 a.py``, ``📁 src/``, ``🖼 shot.png · 1.2 KiB · 640×480``."""
    from agent_tui.core.api import events as ev  # see the module docstring

    out = []
    for part in prompt:
        match part:
            case ev.ImagePart(path=path, size=size, width=width, height=height):
                facts = [path.rsplit("/", 1)[-1]]
                if size is not None:
                    facts.append(byte_size(size))
                if width and height:
                    facts.append(f"{width}×{height}")
                out.append("🖼 " + " · ".join(facts))
            case ev.FilePart(path=path, mime=mime):
                out.append(f"📁 {path.rstrip('/')}/" if mime == "inode/directory" else f"📎 {path}")
    return "  ".join(out)


@dataclass
class PermissionAsk:
    request_id: str
    action: str
    resources: list[str]
    call_id: str | None
    detail: dict
    seq: int
    assistant_message_id: str | None = None


@dataclass
class SessionFacts:
    """What the status bar needs, derived from the log."""

    title: str | None = None
    location: str | None = None
    agent: str | None = None
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    last_input_tokens: int = 0
    cost: float = 0.0
    retry_at_ms: int | None = None
    compacting: bool = False
    step_open: bool = False
    queue_paused: bool = False


@dataclass
class Transcript:
    blocks: list[Block] = field(default_factory=list)
    pending: dict[str, PendingInput] = field(default_factory=dict)
    asks: dict[str, PermissionAsk] = field(default_factory=dict)
    facts: SessionFacts = field(default_factory=SessionFacts)
    head_seq: int = 0
    is_active: bool = False
    version: int = 0  # bumped on any change: cheap "anything new?" check
    hidden: list[tuple[int, int]] = field(default_factory=list)
    """``[boundary, rewind)`` seq ranges the session's rewinds hide (read before folding)."""
    stale: bool = False
    """A rewind or an undo was folded that ``hidden`` does not know: fold the session again."""

    def __post_init__(self) -> None:
        self._by_key: dict[BlockKey, Block] = {b.key: b for b in self.blocks}
        self._admitted: dict[str, PendingInput] = {}
        self._open: set[BlockKey] = set()  # keys of blocks whose liveness depends on is_active
        self._drafts: dict[str, list[ToolBlock]] = {}  # amid -> calls still being written
        self._compactions: dict[str, CompactionBlock] = {}  # message_id -> divider
        self.removed: list[BlockKey] = []  # keys removed since the view last looked
        self.start_seq = 1  # the first seq folded here; older segments are prepended (see prepend)
        self._counted_seq = 0  # usage at or below this seq is already in the seeded totals
        self._rewinds: set[int] = set()  # rewinds and undos that ``hidden`` already accounts for
        self._undone: set[int] = set()

    # ------------------------------------------------------------------ basics

    def get(self, key: BlockKey) -> Block | None:
        return self._by_key.get(key)

    def tool_for(self, amid: str | None, call_id: str | None) -> ToolBlock | None:
        """The tool block of a call (a permission ask names its message and call)."""
        block = self._by_key.get(BlockKey.tool(amid, call_id)) if amid and call_id else None
        return block if isinstance(block, ToolBlock) else None

    def _add(self, block: _B) -> _B:
        block.live = self.is_active
        self.blocks.append(block)
        self._by_key[block.key] = block
        return block

    def _remove(self, key: BlockKey) -> None:
        block = self._by_key.pop(key, None)
        if block is not None:
            self.blocks.remove(block)
            self._open.discard(key)
            self.removed.append(key)

    def know_rewinds(self, state: RewindState) -> None:
        """Before folding: the ranges the session's rewinds hide, and which rewinds and undos exist."""
        self.hidden = [(start, end) for start, end in state.hidden]
        self._rewinds, self._undone = set(state.rewinds), set(state.undone)

    def _changed(self, block: Block) -> None:
        block.touch()
        self.version += 1

    def _set_open(self, block: Block, is_open: bool) -> None:
        if is_open:
            self._open.add(block.key)
            block.live = self.is_active  # a block queued while idle can start while active
        else:
            self._open.discard(block.key)

    def set_active(self, active: bool) -> None:
        """Liveness from the coordinator: flips open blocks between live and interrupted."""
        if active == self.is_active:
            return
        self.is_active = active
        for key in self._open:
            block = self._by_key[key]
            block.live = active
            self._changed(block)
        self.version += 1

    # ------------------------------------------------------------------ durable

    def apply(self, stored: ev.StoredEvent) -> None:
        """Fold one durable event (events at or below ``head_seq`` are ignored)."""
        if stored.seq <= self.head_seq:
            return
        self.head_seq = stored.seq
        self.version += 1
        if any(start <= stored.seq < end for start, end in self.hidden) and not _is_fact(stored.event):
            return  # rewound away: the events stay in the log, the transcript does not show them
        self._fold(stored.event, stored.seq, stored.created)

    def _fold(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        fold_one = _folders().get(type(event))
        if fold_one is not None:
            fold_one(self, event, seq, created)

    # ------------------------------------------------------------------ durable, by family
    # Each ``_on_*`` folds one family of events; ``_folders`` maps each event class to its handler.

    def _on_session(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """Names and selections."""
        from agent_tui.core.api import events as ev  # see the module docstring

        facts = self.facts
        match event:
            case ev.SessionCreated(location=location, title=title, agent=agent, model=model):
                facts.location, facts.title, facts.agent, facts.model = location, title, agent, model
            case ev.SessionRenamed(title=title):
                facts.title = title
            case ev.AgentSelected(agent=agent):
                facts.agent = agent
            case ev.ModelSelected(model=model):
                facts.model = model
            case ev.SessionMoved(location=location):
                facts.location = location

    def _on_inbox(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """Prompts admitted, promoted (a user message), withdrawn; the queue paused or reordered."""
        from agent_tui.core.api import events as ev  # see the module docstring

        match event:
            case ev.PromptAdmitted(input_id=input_id, prompt=prompt, delivery=delivery):
                item = PendingInput(input_id, ev.prompt_text(prompt), delivery, seq, chips(prompt), list(prompt))
                self._admitted[input_id] = item
                self.pending[input_id] = item
                if self.facts.title is None:  # as the store titles the session (see session_title)
                    self.facts.title = prompt_title(item.text)
            case ev.PromptPromoted(input_id=input_id):
                promoted = self._admitted.pop(input_id, None)
                self.pending.pop(input_id, None)
                text, attached = (promoted.text, promoted.attachments) if promoted else ("", "")
                key = BlockKey.user(input_id)
                if key not in self._by_key:
                    self._add(UserBlock(key=key, seq=seq, text=text, attachments=attached))
            case ev.QueuePaused(paused=paused):
                self.facts.queue_paused = paused
            case ev.QueueReordered(order=order):
                items = [self.pending[i] for i in order if i in self.pending]
                for item, place in zip(items, sorted(item.place for item in items), strict=True):
                    item.rank = place
            case ev.PromptWithdrawn(input_id=input_id):
                self._admitted.pop(input_id, None)
                self.pending.pop(input_id, None)
            case ev.InstructionsUpdated(message_id=message_id, text=text):
                self._add(InstructionBlock(key=BlockKey.instruction(message_id), seq=seq, text=text))

    def _on_permission(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        from agent_tui.core.api import events as ev  # see the module docstring

        match event:
            case ev.PermissionAsked():
                self.asks[event.request_id] = PermissionAsk(
                    event.request_id,
                    event.action,
                    list(event.resources),
                    event.call_id,
                    dict(event.detail),
                    seq,
                    event.assistant_message_id,
                )
            case ev.PermissionReplied(request_id=request_id):
                ask = self.asks.pop(request_id, None)
                tool = self.tool_for(ask.assistant_message_id, ask.call_id) if ask else None
                if tool is not None and tool.ended_ms is None:
                    tool.started_ms = created  # its duration is the run's, not the wait for an answer

    def _on_compaction(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        from agent_tui.core.api import events as ev  # see the module docstring

        match event:
            case ev.CompactionAdmitted(input_id=input_id):
                self._add(CompactionBlock(key=BlockKey.compaction(input_id), seq=seq, input_id=input_id))
                return
            case ev.CompactionStarted(message_id=message_id, reason=reason, input_id=input_id):
                block = self._compaction(message_id, input_id, seq)
                block.message_id, block.reason = message_id, reason.value
                block.state, block.summary, block.error = CompactionState.RUNNING, "", None
            case ev.CompactionEnded(message_id=message_id, summary=summary, input_id=input_id):
                block = self._compaction(message_id, input_id, seq)
                block.state, block.summary = CompactionState.DONE, summary
            case ev.CompactionFailed(message_id=message_id, error=error, input_id=input_id):
                block = self._compaction(message_id, input_id, seq)
                block.state, block.error = CompactionState.FAILED, error.message
            case _:
                return
        running = block.state is CompactionState.RUNNING
        self.facts.compacting = running
        self._set_open(block, running)
        self._changed(block)

    def _on_step(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """A step starts, ends or fails; a retry is scheduled."""
        from agent_tui.core.api import events as ev  # see the module docstring

        facts = self.facts
        match event:
            case ev.StepStarted(assistant_message_id=amid, agent=agent, model=model):
                facts.agent, facts.model, facts.step_open = agent, model, True
                facts.retry_at_ms = None
                self._remove(BlockKey.retry(amid))
            case ev.StepEnded(usage=usage, cost=cost):
                facts.step_open = False
                facts.last_input_tokens = usage.input_tokens + usage.output_tokens
                if seq > self._counted_seq:
                    facts.input_tokens += usage.input_tokens
                    facts.output_tokens += usage.output_tokens
                    facts.cost += cost or 0.0
                self._close_step()
            case ev.StepFailed(assistant_message_id=amid, error=error):
                facts.step_open = False
                self._close_step()
                self._add(ErrorBlock(key=BlockKey.error(amid), seq=seq, error_type=error.type, message=error.message))
            case ev.RetryScheduled(assistant_message_id=amid, attempt=attempt, at_ms=at_ms, error=error):
                facts.retry_at_ms = at_ms
                self._remove(BlockKey.retry(amid))
                block = self._add(
                    RetryBlock(
                        key=BlockKey.retry(amid),
                        seq=seq,
                        attempt=attempt,
                        at_ms=at_ms,
                        error_type=error.type,
                        message=error.message,
                    )
                )
                self._set_open(block, True)

    def _on_fragment(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """Text and reasoning fragments: started, then ended with their whole text."""
        from agent_tui.core.api import events as ev  # see the module docstring

        match event:
            case ev.TextStarted(assistant_message_id=amid, ordinal=ordinal):
                self._fragment(amid, ordinal, False, seq)
            case ev.ReasoningStarted(assistant_message_id=amid, ordinal=ordinal):
                self._fragment(amid, ordinal, True, seq)
            case ev.TextEnded(assistant_message_id=amid, ordinal=ordinal, text=text):
                self._end_fragment(self._fragment(amid, ordinal, False, seq), text)
            case ev.ReasoningEnded(assistant_message_id=amid, ordinal=ordinal, text=text):
                self._end_fragment(self._fragment(amid, ordinal, True, seq), text)

    def _on_tool(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """Tool calls and ``!command`` runs: called, snapshotted, settled."""
        from agent_tui.core.api import events as ev  # see the module docstring

        match event:
            case ev.ToolCalled(assistant_message_id=amid, call_id=call_id, name=name, input=args):
                self._start_tool(self._tool(amid, call_id, seq), name, dict(args), created)
            case ev.ShellAdmitted(input_id=input_id, command=command):  # the user's ``!command``
                self._start_tool(self._tool(input_id, "shell", seq), "!", {"command": command}, created)
            case ev.ShellEnded(input_id=input_id, output=output, error=error):
                block = self._tool(input_id, "shell", seq)
                if error is None:
                    block.state, block.output = ToolState.OK, output.text if output else ""
                else:
                    block.state = ToolState.INTERRUPTED if error.type == ErrorType.ABORTED else ToolState.FAILED
                    block.output, block.error = (output.text if output else ""), error.message
                block.ended_ms = created
                self._settle_tool(block)
            case ev.WorkspaceSnapshotted(assistant_message_id=amid, call_id=call_id, error=str() as why):
                block = self._tool(amid, call_id, seq)
                block.unsnapshotted = why
                self._changed(block)
            case ev.ToolSucceeded(assistant_message_id=amid, call_id=call_id, output=output):
                block = self._tool(amid, call_id, seq)
                block.state, block.output, block.ended_ms = ToolState.OK, output.text, created
                self._settle_tool(block)
            case ev.ToolFailed(assistant_message_id=amid, call_id=call_id, error=error):
                block = self._tool(amid, call_id, seq)
                interrupted = error.type in (ErrorType.TOOL_STALE, ErrorType.ABORTED)
                block.state = ToolState.INTERRUPTED if interrupted else ToolState.FAILED
                block.error, block.ended_ms = error.message, created
                self._settle_tool(block)

    def _on_rewind(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """A rewind or an undo this transcript was not told of makes it stale."""
        from agent_tui.core.api import events as ev  # see the module docstring

        match event:
            case ev.SessionRewound(conversation=True, boundary_seq=boundary):
                if seq not in self._rewinds:
                    self.stale = True
                elif (boundary, seq) in self.hidden:  # it withdrew what was pending (in its projector, no events)
                    self.pending = {k: v for k, v in self.pending.items() if v.seq > seq}
            case ev.RewindUndone(rewind_seq=rewound):
                if rewound not in self._undone:
                    self.stale = True

    def _on_execution(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """A busy period ends: failed (an error block), or succeeded or interrupted (retries become history)."""
        from agent_tui.core.api import events as ev  # see the module docstring

        match event:
            case ev.ExecutionFailed(error=error):
                self._add(
                    ErrorBlock(key=BlockKey.execution_error(seq), seq=seq, error_type=error.type, message=error.message)
                )
            case ev.ExecutionSucceeded() | ev.ExecutionInterrupted():
                facts = self.facts
                facts.retry_at_ms = None
                facts.step_open = False
                for key in [k for k in self._open if isinstance(self._by_key[k], RetryBlock)]:
                    block = self._by_key[key]
                    block.live = False  # the wait it announced will never end: history now
                    self._set_open(block, False)
                    self._changed(block)

    # ------------------------------------------------------------------ helpers

    def _fragment(self, amid: str, ordinal: int, reasoning: bool, seq: int) -> TextBlock:
        key = BlockKey.fragment(amid, ordinal, reasoning)
        block = self._by_key.get(key)
        if not isinstance(block, TextBlock):
            block = self._add(TextBlock(key=key, seq=seq, reasoning=reasoning))
            self._set_open(block, True)
        return block

    def _end_fragment(self, block: TextBlock, text: str) -> None:
        block.text, block.open = text, False
        self._set_open(block, False)
        self._changed(block)

    def _tool(self, amid: str, call_id: str, seq: int) -> ToolBlock:
        key = BlockKey.tool(amid, call_id)
        block = self._by_key.get(key)
        if isinstance(block, ToolBlock):
            return block
        # A call the model was still writing becomes this tool (matched by id, else index order).
        drafts = self._drafts.get(amid, [])
        draft = next((b for b in drafts if b.call_id == call_id), drafts[0] if drafts else None)
        if draft is not None:
            drafts.remove(draft)
            del self._by_key[draft.key]
            self._open.discard(draft.key)
            self.removed.append(draft.key)
            draft.key, draft.call_id = key, call_id
            self._by_key[key] = draft
            return draft
        return self._add(ToolBlock(key=key, seq=seq, call_id=call_id))  # type: ignore[return-value]

    def _start_tool(self, block: ToolBlock, name: str, args: dict[str, Any], created: int) -> None:
        block.name, block.input, block.state = name, args, ToolState.RUNNING
        block.started_ms = created
        self._set_open(block, True)
        self._changed(block)

    def _settle_tool(self, block: ToolBlock) -> None:
        block.live_output = ""
        self._set_open(block, False)
        self._changed(block)

    def _compaction(self, message_id: str | None, input_id: str | None, seq: int) -> CompactionBlock:
        found = self._compactions.get(message_id or "")
        for id in (input_id, message_id):
            block = self._by_key.get(BlockKey.compaction(id)) if id else None
            found = found or (block if isinstance(block, CompactionBlock) else None)
        if found is None:
            key = BlockKey.compaction(input_id or message_id, seq)
            found = self._add(CompactionBlock(key=key, seq=seq, message_id=message_id, input_id=input_id))  # type: ignore[assignment]
        if message_id:
            self._compactions[message_id] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    def _close_step(self) -> None:
        """A settled step leaves no open fragment or unstarted tool draft behind."""
        for key in list(self._open):
            block = self._by_key[key]
            if isinstance(block, TextBlock):
                block.open = False
                self._set_open(block, False)
                self._changed(block)
            elif isinstance(block, ToolBlock) and block.state is ToolState.INPUT:
                self._remove(key)
        self._drafts.clear()

    # ------------------------------------------------------------------ live

    def apply_delta(self, delta: ev.LiveEvent) -> Block | None:
        """Fold one live delta; returns the block it changed (None when stale)."""
        from agent_tui.core.api import events as ev  # see the module docstring

        match delta:
            case (
                ev.TextDelta(assistant_message_id=amid, ordinal=ordinal, delta=text)
                | ev.ReasoningDelta(assistant_message_id=amid, ordinal=ordinal, delta=text)
            ):
                reasoning = isinstance(delta, ev.ReasoningDelta)
                block = self._by_key.get(BlockKey.fragment(amid, ordinal, reasoning))
                if block is None:
                    block = self._fragment(amid, ordinal, reasoning, self.head_seq)
                if not isinstance(block, TextBlock) or not block.open:
                    return None
                block.append(text)
            case ev.ToolInputStarted(assistant_message_id=amid, index=index, call_id=call_id, name=name):
                key = BlockKey.draft(amid, index)
                if key in self._by_key or (call_id and BlockKey.tool(amid, call_id) in self._by_key):
                    return None
                block = self._add(ToolBlock(key=key, seq=self.head_seq, call_id=call_id, name=name or ""))
                self._drafts.setdefault(amid, []).append(block)  # type: ignore[arg-type]
                self._set_open(block, True)
            case ev.ToolInputDelta(assistant_message_id=amid, index=index, delta=text):
                block = self._by_key.get(BlockKey.draft(amid, index))
                if not isinstance(block, ToolBlock):
                    return None
                block.append_input(text)
            case ev.ToolOutputDelta(assistant_message_id=amid, call_id=call_id, delta=text):
                block = self._by_key.get(BlockKey.tool(amid, call_id))
                if not isinstance(block, ToolBlock) or block.state is not ToolState.RUNNING:
                    return None
                block.append_live_output(text)
            case ev.CompactionDelta(message_id=message_id, delta=text):
                block = self._compactions.get(message_id)
                if block is None or block.state is not CompactionState.RUNNING:
                    return None
                block.summary += text
            case _:
                return None
        self._changed(block)
        return block

    # ------------------------------------------------------------------ segments

    def seed(
        self,
        start_seq: int,
        facts: SessionFacts,
        counted_seq: int,
        inbox: list[PendingInput],
        compactions: list[tuple[str, int]],
    ) -> None:
        """Start folding at ``start_seq`` (a busy-period boundary) instead of the log's start.

        ``facts`` (counters and names from the session row, which already count
        everything up to ``counted_seq``) and ``inbox`` (unpromoted inputs, which
        may be older than ``start_seq``) stand in for the events not folded.
        """
        self.start_seq, self.head_seq = start_seq, start_seq - 1
        self.facts, self._counted_seq = facts, counted_seq
        for item in inbox:
            self._admitted[item.input_id] = item
            self.pending[item.input_id] = item
        for input_id, seq in compactions:
            self._add(CompactionBlock(key=BlockKey.compaction(input_id), seq=seq, input_id=input_id))

    def prepend(self, older: Transcript) -> list[Block]:
        """Put an older segment (folded over ``[older.start_seq, self.start_seq)``) in front.

        Returns the blocks that are new on screen, oldest first. A block both
        segments know (a divider queued before the boundary) keeps the newer
        state; user messages promoted here but admitted there get their text.
        """
        fresh = [b for b in older.blocks if b.key not in self._by_key]
        for block in fresh:
            self._by_key[block.key] = block
            if block.key in older._open:
                self._open.add(block.key)
        self.blocks[:0] = fresh
        for input_id, item in older._admitted.items():
            user = self._by_key.get(BlockKey.user(input_id))
            if isinstance(user, UserBlock) and not user.text:
                user.text = item.text
                self._changed(user)
        self.start_seq = older.start_seq
        if self.facts.title is None:
            self.facts.title = older.facts.title
        self.version += 1
        return fresh

    # ------------------------------------------------------------------ views

    @property
    def pending_inputs(self) -> list[PendingInput]:
        return sorted(self.pending.values(), key=lambda item: item.place)

    def last_queued(self) -> PendingInput | None:
        queued = [p for p in self.pending_inputs if p.delivery is Delivery.QUEUE]
        return queued[-1] if queued else None


def _is_fact(event: ev.DurableEvent) -> bool:
    """Names and selections stay true after a rewind (the session row keeps them too)."""
    from agent_tui.core.api import events as ev  # see the module docstring

    return isinstance(
        event, (ev.SessionCreated, ev.SessionRenamed, ev.AgentSelected, ev.ModelSelected, ev.SessionMoved)
    )


Folder = Callable[[Transcript, Any, int, int], None]


@cache
def _folders() -> dict[type, Folder]:
    """Each durable event class the transcript folds, and its family's handler (built at the first fold)."""
    from agent_tui.core.api import events as ev  # see the module docstring

    T = Transcript
    families: list[tuple[Folder, tuple[type, ...]]] = [
        (T._on_session, (ev.SessionCreated, ev.SessionRenamed, ev.AgentSelected, ev.ModelSelected, ev.SessionMoved)),
        (
            T._on_inbox,
            (
                ev.PromptAdmitted,
                ev.PromptPromoted,
                ev.QueuePaused,
                ev.QueueReordered,
                ev.PromptWithdrawn,
                ev.InstructionsUpdated,
            ),
        ),
        (T._on_permission, (ev.PermissionAsked, ev.PermissionReplied)),
        (T._on_compaction, (ev.CompactionAdmitted, ev.CompactionStarted, ev.CompactionEnded, ev.CompactionFailed)),
        (T._on_step, (ev.StepStarted, ev.StepEnded, ev.StepFailed, ev.RetryScheduled)),
        (T._on_fragment, (ev.TextStarted, ev.ReasoningStarted, ev.TextEnded, ev.ReasoningEnded)),
        (
            T._on_tool,
            (ev.ToolCalled, ev.ShellAdmitted, ev.ShellEnded, ev.WorkspaceSnapshotted, ev.ToolSucceeded, ev.ToolFailed),
        ),
        (T._on_rewind, (ev.SessionRewound, ev.RewindUndone)),
        (T._on_execution, (ev.ExecutionFailed, ev.ExecutionSucceeded, ev.ExecutionInterrupted)),
    ]
    return {kind: handler for handler, kinds in families for kind in kinds}


def fold(events: list[ev.StoredEvent], is_active: bool = False) -> Transcript:
    transcript = Transcript(is_active=is_active)
    for stored in events:
        transcript.apply(stored)
    return transcript
