"""Input on its way in: prompts admitted, promoted to user messages, withdrawn; the queue paused or reordered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.humanize import byte_size
from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.transcript.records import PendingInput
from agent_tui.tui.transcript.state import TranscriptState
from agent_tui.tui.transcript_blocks import InstructionBlock, UserBlock
from agent_tui.vocab.kinds import Delivery
from agent_tui.vocab.titles import prompt_title

if TYPE_CHECKING:
    from agent_tui.core.api import events as ev


def chips(prompt: list) -> str:
    """The attachment chips of a prompt: ``📎 a.py``, ``📁 src/``, ``🖼 shot.png · 1.2 KiB · 640×480``,
    ``🤖 explore`` (a subagent the model was asked to hand the work to), ``🔗 notes:notes://readme`` (an MCP resource)."""
    from agent_tui.core.api import events as ev  # see transcript.model's docstring

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
            case ev.AgentPart(name=name):
                out.append(f"🤖 {name}")
            case ev.ResourcePart(server=server, uri=uri):
                out.append(f"🔗 {server}:{uri}")
    return "  ".join(out)


class InboxFold(TranscriptState):
    def _on_inbox(self, event: ev.DurableEvent, seq: int, created: int) -> None:
        """Prompts admitted, promoted (a user message), withdrawn; the queue paused or reordered."""
        from agent_tui.core.api import events as ev  # see transcript.model's docstring

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
            case ev.InstructionsUpdated(message_id=message_id, text=text, source=source):
                self._add(InstructionBlock(key=BlockKey.instruction(message_id), seq=seq, text=text, source=source))

    @property
    def pending_inputs(self) -> list[PendingInput]:
        return sorted(self.pending.values(), key=lambda item: item.place)

    def last_queued(self) -> PendingInput | None:
        queued = [p for p in self.pending_inputs if p.delivery is Delivery.QUEUE]
        return queued[-1] if queued else None
