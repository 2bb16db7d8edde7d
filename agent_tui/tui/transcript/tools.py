"""Tool calls and the user's ``!command`` runs: drafts the model is still writing, calls, snapshots, outcomes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.state import TranscriptState
from agent_tui.tui.transcript_blocks import SubagentProgress, ToolBlock, ToolState
from agent_tui.vocab.kinds import ErrorType

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev


class ToolFold(TranscriptState):
    def _on_tool(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """Tool calls and ``!command`` runs: called, snapshotted, settled."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

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
            case ev.ToolSucceeded(assistant_message_id=amid, call_id=call_id, output=output, result_meta=meta):
                block = self._tool(amid, call_id, seq)
                block.state, block.output, block.ended_ms = ToolState.OK, output.text, created
                block.child_session = meta.get("session_id") or block.child_session
                self._settle_tool(block)
            case ev.ToolFailed(assistant_message_id=amid, call_id=call_id, error=error, result_meta=meta):
                block = self._tool(amid, call_id, seq)
                block.child_session = meta.get("session_id") or block.child_session
                interrupted = error.type in (ErrorType.TOOL_STALE, ErrorType.ABORTED)
                block.state = ToolState.INTERRUPTED if interrupted else ToolState.FAILED
                block.error, block.ended_ms = error.message, created
                partial = meta.get("partial_output")
                if isinstance(partial, str) and partial:  # interrupted: what it printed stays on screen
                    block.output = partial
                self._settle_tool(block)

    def show_subagent(self, amid: str, call_id: str, child: str, progress: SubagentProgress) -> bool:
        """A ``task`` call's child moved on (``tui/child_progress.py``); whether its block changed."""
        block = self.tool_for(amid, call_id)
        if block is None or (block.subagent == progress and block.child_session == child):
            return False
        block.subagent, block.child_session = progress, child
        self._changed(block)
        return True

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

    def _tool_delta(self, delta: ev.ToolInputStarted | ev.ToolInputDelta | ev.ToolOutputDelta) -> ToolBlock | None:
        """A draft call starts or grows, a running call's output grows; the block it changed, or None."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

        match delta:
            case ev.ToolInputStarted(assistant_message_id=amid, index=index, call_id=call_id, name=name):
                key = BlockKey.draft(amid, index)
                if key in self._by_key or (call_id and BlockKey.tool(amid, call_id) in self._by_key):
                    return None
                draft = self._add(ToolBlock(key=key, seq=self.head_seq, call_id=call_id, name=name or ""))
                self._drafts.setdefault(amid, []).append(draft)  # type: ignore[arg-type]
                self._set_open(draft, True)
                return draft  # type: ignore[return-value]
            case ev.ToolInputDelta(assistant_message_id=amid, index=index, delta=text):
                block = self._by_key.get(BlockKey.draft(amid, index))
                if not isinstance(block, ToolBlock):
                    return None
                block.append_input(text)
                return block
            case ev.ToolOutputDelta(assistant_message_id=amid, call_id=call_id, delta=text):
                block = self._by_key.get(BlockKey.tool(amid, call_id))
                if not isinstance(block, ToolBlock) or block.state is not ToolState.RUNNING:
                    return None
                block.append_live_output(text)
                return block
        return None
