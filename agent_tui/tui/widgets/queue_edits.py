"""What the person does to the queued input in the pending strip: edit, withdraw, re-send as a steer, reorder.

Each edit withdraws or reorders through the facade; the queue may have moved on
meanwhile (an item promoted into the transcript), and then the edit is refused
with one warning and nothing else changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.pending import PendingInputStrip
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.vocab.kinds import Delivery

if TYPE_CHECKING:
    from agent_tui.tui.widgets.session_view import SessionView


class QueueEdits:
    def __init__(self, services: TuiServices, view: SessionView) -> None:
        self.services = services
        self.view = view

    async def picked(self, message: PendingInputStrip.Picked) -> None:
        """Edit (withdraw, into the prompt), withdraw, or re-send a queued item as a steer."""
        item = message.item
        if not await self.withdraw(item.input_id):
            return
        prompt = self.view.query_one(PromptInput)
        match message.action:
            case "edit":
                prompt.load_text(item.text + (f"\n{prompt.text}" if prompt.text else ""))
                prompt.move_cursor(prompt.document.end)
                prompt.focus()
            case "steer":
                try:
                    sessions = await self.services.ready()
                    await sessions.prompt(self.view.shown_session_id, item.prompt, delivery=Delivery.STEER.value)
                except Exception as error:  # withdrawn but not re-sent: the text goes back to the prompt
                    self.view.sender.keep(item.text, f"not sent: {error}", "error")

    async def reorder(self, order: list[str]) -> None:
        try:
            await (await self.services.ready()).reorder_queue(self.view.shown_session_id, order)
        except Exception as error:  # the queue moved on meanwhile (an item was promoted)
            self.view.app.notify(f"cannot reorder: {error}", severity="warning")

    async def withdraw_last(self) -> None:
        pending = self.view.transcript.pending_inputs
        if pending:
            await self.withdraw(pending[-1].input_id)

    async def withdraw(self, input_id: str) -> bool:
        try:
            await (await self.services.ready()).withdraw(self.view.shown_session_id, input_id)
        except Exception as error:  # promoted meanwhile: it is in the transcript now
            self.view.app.notify(f"cannot withdraw: {error}", severity="warning")
            return False
        return True
