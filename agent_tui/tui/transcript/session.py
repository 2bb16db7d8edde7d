"""The session as a whole: its names and selections, and the rewinds and undos that hide part of its log."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.transcript.state import TranscriptState

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev


class SessionFold(TranscriptState):
    def _on_session(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """Names and selections."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

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

    def _on_rewind(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """A rewind or an undo this transcript was not told of makes it stale."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

        match event:
            case ev.SessionRewound(conversation=True, boundary_seq=boundary):
                if seq not in self._rewinds:
                    self.stale = True
                elif (boundary, seq) in self.hidden:  # it withdrew what was pending (in its projector, no events)
                    self.pending = {k: v for k, v in self.pending.items() if v.seq > seq}
            case ev.RewindUndone(rewind_seq=rewound):
                if rewound not in self._undone:
                    self.stale = True
