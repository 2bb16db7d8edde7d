"""One session on screen: transcript, pending strip, permission panel, prompt, status.

It follows the session through the facade only: ``log(follow=True)`` for durable
events and ``subscribe`` for live deltas, folded into a :class:`Transcript` and
repainted at most ``timings.flush_interval_s`` apart, so a fast stream costs one
repaint per frame rather than one per token. A session with no id yet is created
on its first prompt, so opening the app never leaves an empty session behind.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from functools import partial
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.message import Message

from agent_tui.core.event_values import Delivery
from agent_tui.tui.transcript_blocks import ToolBlock
from agent_tui.tui.commands import Command, CommandError, parse_command
from agent_tui.tui.context import CoreUnavailable, TuiContext
from agent_tui.tui.port import call
from agent_tui.tui.transcript_model import Transcript
from agent_tui.tui.widgets.pending import PendingInputStrip
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.status import StatusBar, StatusInputs
from agent_tui.tui.widgets.transcript import NewOutputHint, TranscriptView

if TYPE_CHECKING:
    from agent_tui.core import events as ev


def _session_id(created: object) -> str:
    return created if isinstance(created, str) else str(getattr(created, "id"))


class SessionView(Vertical):
    class CommandEntered(Message):
        """A slash command typed into the prompt; the app runs it."""

        def __init__(self, command: Command) -> None:
            super().__init__()
            self.command = command

    def __init__(self, ctx: TuiContext, session_id: str | None = None) -> None:
        super().__init__(id="session")
        self.ctx = ctx
        self.session_id = session_id
        self.transcript = Transcript()
        self.synced = session_id is None
        self.interrupting = False
        self.background_asks = 0
        self.notice: str | None = ctx.setup_hint
        self._flush_pending = False
        self._sending = asyncio.Lock()  # prompts leave in the order typed; the first one creates the session
        # Asks answered here whose reply is not in the log yet: the panel closes at once, while the
        # transcript keeps the ask until the durable reply (which also restarts the tool's clock).
        self._answered: set[str] = set()

    def compose(self) -> ComposeResult:
        clock = self.ctx.clock
        yield TranscriptView(clock, id="transcript")
        yield NewOutputHint("↓ new output below — Ctrl+End (or click) to follow", id="new-output")
        yield PendingInputStrip(id="pending")
        yield PermissionPanel(clock, self.ctx.timings.permission_grace_s, id="permission")
        yield PromptInput(id="prompt")
        yield StatusBar(clock, id="status")

    async def on_mount(self) -> None:
        self.query_one("#new-output").display = False
        self.query_one(PromptInput).focus()
        self.set_interval(1.0, self._poll)
        await self.switch(self.session_id)

    async def switch(self, session_id: str | None) -> None:
        """Show another session (None: a new one) in place; the draft in the prompt stays."""
        self.workers.cancel_node(self)  # the old feed stops here; its drain goes on in the runner
        self.session_id, self.transcript = session_id, Transcript()
        self.synced, self.interrupting = session_id is None, False
        self._answered.clear()
        view = self.query_one(TranscriptView)
        view.fetch_older = None
        await view.show(self.transcript)
        self.query_one(PermissionPanel).show_ask(None)
        if session_id is not None:
            self._follow(session_id)
        self.paint_chrome()

    # ------------------------------------------------------------------ feed

    @property
    def is_active(self) -> bool:
        return self.session_id is not None and self.session_id in self.ctx.active()

    def _follow(self, session_id: str) -> None:
        self.run_worker(partial(self._follow_log, session_id), group="feed", name="log")
        # a callable, not a coroutine: a failed log read may cancel this worker before it starts
        self.run_worker(partial(self._follow_deltas, session_id), group="feed", name="deltas")

    async def _follow_log(self, session_id: str) -> None:
        transcript = self.transcript
        try:
            sessions = await self.ctx.ready()
            # Imported here, once the core is open: the event models' module imports pydantic, which
            # the first frame does without (the core's own start-up has imported them by now).
            from agent_tui.core import events as ev
            from agent_tui.tui.session_loader import TAIL_EVENTS

            record = await call(sessions.get(session_id))
            after = max(0, record.head_seq - TAIL_EVENTS)  # only the newest busy periods before the first paint
            replay: list[ev.StoredEvent] = []
            async with aclosing(sessions.log(session_id, after=after, follow=True)) as log:
                async for item in log:
                    if not isinstance(item, ev.StoredEvent):
                        if not self.synced:  # the one Synced marker: paint what we have at once
                            await self._first_paint(sessions, session_id, replay, after == 0)
                    elif self.synced:
                        transcript.apply(item)
                        self.schedule_flush()
                    else:
                        replay.append(item)
        except Exception as error:  # unknown id, unreadable store: say so, keep the app usable
            self.app.notify(f"cannot open session {session_id}: {error}", severity="error")
            for worker in self.app.workers:
                if worker.node is self and worker.name == "deltas":
                    worker.cancel()
            self.session_id, self.synced, self.transcript = None, True, Transcript()
            await self.query_one(TranscriptView).show(self.transcript)
            self.paint_chrome()

    async def _first_paint(self, sessions, session_id: str, replay: list[ev.StoredEvent], whole: bool) -> None:  # noqa: ANN001
        from agent_tui.tui.session_loader import fold_older, seed_for, segment_start  # see _follow_log

        transcript = self.transcript
        start = segment_start(replay, from_log_start=whole)
        if not whole:
            await seed_for(sessions, session_id, transcript, replay[start].seq if replay else transcript.head_seq + 1)
        for stored in replay[start:]:
            transcript.apply(stored)
        self.synced = True
        transcript.set_active(self.is_active)
        view = self.query_one(TranscriptView)
        view.fetch_older = None if whole else (lambda: fold_older(sessions, session_id, transcript))
        await view.show(transcript)
        self.paint_chrome()

    async def _follow_deltas(self, session_id: str) -> None:
        try:
            sessions = await self.ctx.ready()
        except CoreUnavailable:  # the log worker says why; live deltas have nothing to follow
            return
        with sessions.subscribe(session_id) as deltas:
            from agent_tui.core import events as ev  # see _follow_log

            async for delta in deltas:
                if isinstance(delta, ev.HeadAdvanced):
                    continue
                if self.transcript.apply_delta(delta) is not None and self.synced:
                    self.schedule_flush()

    def schedule_flush(self) -> None:
        if not self._flush_pending:
            self._flush_pending = True
            interval = self.ctx.timings.flush_interval_s
            self.set_timer(interval, self.flush) if interval > 0 else self.call_later(self.flush)

    async def flush(self) -> None:
        """Repaint everything that changed since the last flush."""
        self._flush_pending = False
        if not self.synced:
            return
        self.ctx.quiet_gc.busy()  # output is moving: not the moment for a full collection
        active = self.is_active
        self.transcript.set_active(active)
        if not active:
            self.interrupting = False
        try:
            view = self.query_one(TranscriptView)
            await view.sync()
            self.query_one("#new-output").display = view.unseen_output
        except NoMatches:  # torn down mid-update
            return
        self.paint_chrome()

    def paint_chrome(self) -> None:
        try:
            self.paint_chrome_now()
        except NoMatches:  # torn down mid-update (the app is exiting): nothing left to paint
            pass

    def paint_chrome_now(self) -> None:
        t = self.transcript
        self.query_one(PendingInputStrip).show_items(t.pending_inputs)
        waiting = (a for a in t.asks.values() if a.request_id not in self._answered)
        ask = next(waiting, None) if t.is_active else None
        panel = self.query_one(PermissionPanel)
        had_ask = panel.ask is not None
        patch = None
        if ask is not None and ask.call_id:
            tool = next((b for b in t.blocks[-50:] if isinstance(b, ToolBlock) and b.call_id == ask.call_id), None)
            patch = tool.patch if tool else None
        panel.show_ask(ask, patch)
        if had_ask and ask is None:
            self.query_one(PromptInput).focus()
        self.query_one(StatusBar).show(
            t if self.session_id else None,
            StatusInputs(
                location=self.ctx.location, model=self.ctx.model, agent=self.ctx.agent,
                context_window=self.ctx.context_window(t.facts.model or self.ctx.model),
                interrupting=self.interrupting, background_asks=self.background_asks, notice=self.notice,
            ),
        )  # fmt: skip

    async def _poll(self) -> None:
        """Liveness and other sessions' asks change without events of this session."""
        sessions = self.ctx.sessions
        count = 0
        for other in self.ctx.active():
            if other != self.session_id:
                count += len(await call(sessions.permissions(other)) or [])
        self.background_asks = count
        if self.synced:
            await self.flush()

    def on_transcript_view_scrolled(self) -> None:
        self.query_one("#new-output").display = self.query_one(TranscriptView).unseen_output

    # ------------------------------------------------------------------ input

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        """Slash commands go to the app; ``//x`` sends ``/x`` literally."""
        text = message.text
        try:
            command = parse_command(text)
        except CommandError as error:
            self.app.notify(str(error), severity="error")
            self.query_one(PromptInput).load_text(text)
            return
        if command is not None:
            self.post_message(self.CommandEntered(command))
            return
        if text.lstrip().startswith("//"):
            text = text.replace("/", "", 1)
        delivery = message.delivery if self.is_active else Delivery.STEER
        self.send(text, delivery)

    @work(group="send")
    async def send(self, text: str, delivery: Delivery) -> None:
        async with self._sending:
            await self._send(text, delivery)

    async def _send(self, text: str, delivery: Delivery) -> None:
        try:
            sessions = await self.ctx.ready_to_run()
            from agent_tui.core import events as ev  # see _follow_log

            if self.ctx.runner_error:
                self.app.notify(self.ctx.runner_error, severity="error")
            if self.session_id is None:
                created = await call(sessions.create(location=self.ctx.location, model=self.ctx.model))
                self.session_id = _session_id(created)
                self._follow(self.session_id)
            await call(sessions.prompt(self.session_id, ev.text_prompt(text), delivery=delivery.value))
        except Exception as error:  # the facade's one-line reason, and the text stays recallable
            self.app.notify(f"not sent: {error}", severity="error")
            prompt = self.query_one(PromptInput)
            if not prompt.text:
                prompt.load_text(text)

    async def on_prompt_input_edit_queued(self) -> None:
        item = self.transcript.last_queued()
        if item is not None and await self._withdraw(item.input_id):
            prompt = self.query_one(PromptInput)
            prompt.load_text(item.text + (f"\n{prompt.text}" if prompt.text else ""))
            prompt.move_cursor(prompt.document.end)

    async def withdraw_last(self) -> None:
        pending = self.transcript.pending_inputs
        if pending:
            await self._withdraw(pending[-1].input_id)

    async def _withdraw(self, input_id: str) -> bool:
        try:
            await call((await self.ctx.ready()).withdraw(self.session_id, input_id))
        except Exception as error:  # promoted meanwhile: it is in the transcript now
            self.app.notify(f"cannot withdraw: {error}", severity="warning")
            return False
        return True

    async def interrupt(self, reason: str = "user") -> bool:
        """Esc: interrupt a running session (pending input stays pending)."""
        if not self.is_active or self.session_id is None:
            return False
        self.interrupting = True
        self.paint_chrome()
        self.run_worker(call((await self.ctx.ready()).interrupt(self.session_id, reason)), group="interrupt")
        return True

    def on_prompt_input_scroll_transcript(self, message: PromptInput.ScrollTranscript) -> None:
        view = self.query_one(TranscriptView)
        view.scroll_page_up() if message.pages < 0 else view.scroll_page_down()

    def on_permission_panel_typed(self, message: PermissionPanel.Typed) -> None:
        self.query_one(PromptInput).insert(message.character)

    async def on_permission_panel_answered(self, message: PermissionPanel.Answered) -> None:
        panel = self.query_one(PermissionPanel)
        try:
            await call((await self.ctx.ready()).reply_permission(message.request_id, message.reply.value, message.message))
        except Exception as error:
            self.app.notify(f"reply failed: {error}", severity="error")
            return
        self._answered.add(message.request_id)
        panel.show_ask(None)
        self.query_one(PromptInput).focus()
        self.paint_chrome()
