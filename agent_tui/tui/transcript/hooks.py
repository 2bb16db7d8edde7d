"""Hook runs (``session.hook.ran``): one small block each, where the hook ran in the session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.state import TranscriptState
from agent_tui.tui.transcript_blocks import HookBlock

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev


class HookFold(TranscriptState):
    def _on_hook(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

        if isinstance(event, ev.HookRan):
            block = HookBlock(
                key=BlockKey.hook(seq),
                seq=seq,
                event=event.hook_event,
                command=event.command,
                outcome=event.outcome,
                tool_name=event.tool_name,
                message=event.message,
                context=event.context,
            )
            self._add(block)
