"""Permission asks: open until answered; an answer restarts the clock of the call it held."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.transcript.records import PermissionAsk
from agent_tui.tui.transcript.state import TranscriptState

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev


class PermissionFold(TranscriptState):
    def _on_permission(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

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
                    list(event.save),
                )
                asking = self.tool_for(event.assistant_message_id, event.call_id)
                if asking is not None:
                    asking.awaiting_permission = True
                    self._changed(asking)
            case ev.PermissionReplied(request_id=request_id):
                ask = self.asks.pop(request_id, None)
                tool = self.tool_for(ask.assistant_message_id, ask.call_id) if ask else None
                if tool is not None and tool.awaiting_permission:
                    tool.awaiting_permission = False
                    self._changed(tool)
                if tool is not None and tool.ended_ms is None:
                    tool.started_ms = created  # its duration is the run's, not the wait for an answer
