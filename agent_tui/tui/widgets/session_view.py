"""One session on screen: transcript, plan, pending strip, permission panel, prompt, status.

The view composes the widgets, paints the chrome around the transcript and routes
each widget's messages; what the transcript holds and when it repaints is its
:class:`SessionFeed`'s work, which it serves as the feed's :class:`FeedView`. The
input's paths have a module each: :class:`PromptSender` (a prompt or ``!command``
to the session, which is created on its first prompt, so opening the app never
leaves an empty session behind), :class:`PromptCompletion` (the ``@``/``/`` list)
and :class:`QueueEdits` (the pending strip's edits).
"""

from __future__ import annotations

from functools import partial

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.message import Message

from agent_tui.tui.command_registry import Command, CommandError, parse_command
from agent_tui.tui.mcp_view import count_label, ready_count
from agent_tui.tui.prompt_history import PromptHistory
from agent_tui.tui.rewind_choice import UNDO, RewindChoice
from agent_tui.tui.services import TuiServices
from agent_tui.tui.session_feed import POLL_S, SessionFeed
from agent_tui.tui.transcript.model import Transcript
from agent_tui.tui.widgets.activity import ActivityLine
from agent_tui.tui.widgets.completion import CompletionList
from agent_tui.tui.widgets.pending import PendingInputStrip
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.plan import PlanPanel
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.prompt_completion import PromptCompletion
from agent_tui.tui.widgets.prompt_sender import PromptSender
from agent_tui.tui.widgets.queue_edits import QueueEdits
from agent_tui.tui.widgets.status import StatusBar, StatusInputs
from agent_tui.tui.widgets.transcript import FeedHost, NewOutputHint, TranscriptView
from agent_tui.vocab.kinds import ApprovalMode, Delivery


def rewind_summary(result: object) -> str:
    """One notice: what was rewound and which files changed."""
    changed = list(getattr(result, "changed", []))
    head = "rewind undone" if getattr(result, "mode", None) is None else "rewound"
    files = ", ".join(f"{c.path} ({c.change})" for c in changed[:5]) + (" …" if len(changed) > 5 else "")
    said = [f"{len(changed)} file(s) changed: {files}" if changed else "", getattr(result, "note", None) or ""]
    return f"{head}: " + ("; ".join(part for part in said if part) or "no file changed")


class SessionView(FeedHost, Vertical):
    class CommandEntered(Message):
        """A slash command typed into the prompt; the app runs it."""

        def __init__(self, command: Command) -> None:
            super().__init__()
            self.command = command

    def __init__(self, services: TuiServices, session_id: str | None = None) -> None:
        super().__init__(id="session")
        self.services = services
        self.feed = SessionFeed(services, self)
        self._opening = session_id  # followed once mounted
        self.interrupting = False
        self.notice: str | None = services.setup_hint
        # Asks answered here whose reply is not in the log yet: the panel closes at once, while the
        # transcript keeps the ask until the durable reply (which also restarts the tool's clock).
        self._answered: set[str] = set()
        self.sender = PromptSender(services, self)
        self.completion = PromptCompletion(services)
        self.queue_edits = QueueEdits(services, self)

    def compose(self) -> ComposeResult:
        clock = self.services.clock
        yield TranscriptView(clock, id="transcript")
        yield NewOutputHint("↓ new output below — Ctrl+End (or click) to follow", id="new-output")
        yield ActivityLine(clock, self._activity_counters, id="activity")
        yield PlanPanel(id="plan")
        yield PendingInputStrip(id="pending")
        yield PermissionPanel(clock, self.services.timings.permission_grace_s, id="permission")
        yield CompletionList(id="completion")
        yield PromptInput(
            id="prompt",
            paste_lines=lambda: self.services.paste_chip_lines,
            prompts=partial(PromptHistory.for_location, self.services.location),
        )
        yield StatusBar(clock, id="status")

    async def on_mount(self) -> None:
        self.query_one("#new-output").display = False
        self.query_one(PromptInput).completion = self.query_one(CompletionList)
        self.query_one(PromptInput).pending = self.query_one(PendingInputStrip)
        self.query_one(PromptInput).focus()
        self.set_interval(POLL_S, self.feed.poll)
        await self.switch(self._opening)

    async def switch(self, session_id: str | None) -> None:
        """Show another session (None: a new one) in place; the draft in the prompt stays."""
        self.workers.cancel_group(self, "feed")  # the old feed stops here; its drain goes on in the runner
        self.feed.open(session_id)
        self.interrupting = False
        self._answered.clear()
        self.query_one(ActivityLine).reset()
        await self.show_transcript(self.feed.transcript, None)
        self.query_one(PermissionPanel).show_ask(None)
        self.feed.follow()
        self.paint_chrome()

    # ------------------------------------------------------------------ what the feed has

    @property
    def session_id(self) -> str | None:
        return self.feed.session_id

    @property
    def shown_session_id(self) -> str:
        """The session on screen, for what is only offered once there is one (its queue, its rewinds)."""
        session_id = self.feed.session_id
        if session_id is None:
            raise RuntimeError("no session is open in this view")
        return session_id

    @property
    def transcript(self) -> Transcript:
        return self.feed.transcript

    @property
    def synced(self) -> bool:
        return self.feed.synced

    @property
    def is_active(self) -> bool:
        return self.feed.is_active

    # ------------------------------------------------------------------ FeedView

    async def repaint(self, active: bool) -> None:
        if not active:
            self.interrupting = False
        try:
            self.query_one(ActivityLine).observe(active)
            view = self.query_one(TranscriptView)
            await view.sync()
            self.query_one("#new-output").display = view.unseen_output
        except NoMatches:  # torn down mid-update
            return
        self.paint_chrome()

    def report(self, message: str) -> None:
        self.app.notify(message, severity="error")

    def reopen(self) -> None:
        """After a rewind (here or in another process): fold the session again from the store."""
        if self.session_id is not None:
            self.app.call_later(self.switch, self.session_id)

    def paint_chrome(self) -> None:
        try:
            self.paint_chrome_now()
        except NoMatches:  # torn down mid-update (the app is exiting): nothing left to paint
            pass

    def paint_chrome_now(self) -> None:
        t = self.transcript
        self.query_one(PlanPanel).show_plan(self.feed.plan)
        self.query_one(PendingInputStrip).show_items(t.pending_inputs)
        self.query_one(PromptInput).show_running(t.is_active and self.session_id is not None)
        waiting = (a for a in t.asks.values() if a.request_id not in self._answered)
        ask = next(waiting, None) if t.is_active else None
        panel = self.query_one(PermissionPanel)
        had_ask = panel.ask is not None
        patch, who = None, None
        if ask is not None:
            tool = t.tool_for(ask.assistant_message_id, ask.call_id)
            patch = tool.patch if tool else None
        elif t.is_active:  # none of its own: a subagent's, naming it
            child = next((c for c in self.feed.child_asks if c.ask.request_id not in self._answered), None)
            ask, who = (child.ask, child.who) if child is not None else (None, None)
        offer_edits = who is None and self.approval_mode() == ApprovalMode.ASK
        panel.show_ask(ask, patch, who, offer_edits=offer_edits)
        self.query_one(ActivityLine).hold(ask is not None)
        if had_ask and ask is None:
            self.query_one(PromptInput).focus()
        self.query_one(StatusBar).show(
            t if self.session_id else None,
            StatusInputs(
                location=self.services.location,
                model=self.services.model,
                agent=self.services.agent,
                approval=self.approval_mode(),
                context_window=self.services.context_window(t.facts.model or self.services.model),
                interrupting=self.interrupting,
                background_asks=self.feed.background_asks,
                notice=self.notice,
                mcp=self._mcp_count(t.facts.location if self.session_id else None),
            ),
        )

    def approval_mode(self) -> str:
        """The approval mode of the session on screen: chosen for it here, else the config's; with
        no session yet, the mode its first prompt will start it in."""
        sessions, sid = self.services.sessions, self.session_id
        chosen = sessions.approval(sid) if sessions is not None and sid is not None else None
        if chosen is None and sid is not None and self.services.settings is not None:
            chosen = self.services.settings.approval
        return str(chosen or self.services.approval)

    def _mcp_count(self, location: str | None) -> str | None:
        if self.services.mcp is None:
            return None
        return count_label(*ready_count(self.services.mcp.mcp_status(), location or self.services.location))

    def on_transcript_view_scrolled(self) -> None:
        self.query_one("#new-output").display = self.query_one(TranscriptView).unseen_output

    # ------------------------------------------------------------------ input

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        """Slash commands go to the app; ``//x`` sends ``/x`` literally."""
        text = message.text
        try:
            command = parse_command(text, self.services.command_specs())
        except CommandError as error:
            self.app.notify(str(error), severity="error")
            self.query_one(PromptInput).load_text(text)
            return
        if command is not None:
            self.post_message(self.CommandEntered(command))
            return
        if text.lstrip().startswith("//") or text.lstrip().startswith("\\!"):
            text = text.replace("/" if text.lstrip()[0] == "/" else "\\", "", 1)
        elif text.lstrip().startswith("!"):
            self.run_shell(text.lstrip()[1:].strip(), text)
            return
        delivery = message.delivery if self.is_active else Delivery.STEER
        self.send(text, delivery)

    @work(group="send")
    async def run_shell(self, command: str, text: str) -> None:
        await self.sender.run_shell(command, text)

    def _activity_counters(self) -> tuple[int, int]:
        """What ends a turn and what it streamed, for the activity line."""
        t = self.transcript
        return t.facts.executions_ended, t.streamed_chars

    @work(group="send")
    async def send(self, text: str, delivery: Delivery) -> None:
        await self.sender.send(text, delivery)

    # ------------------------------------------------------------------ completion

    def on_text_area_changed(self) -> None:
        self._update_completion()

    def on_text_area_selection_changed(self) -> None:
        self._update_completion()

    def _update_completion(self) -> None:
        query = self.completion.follow(self.query_one(PromptInput).completing(), self.query_one(CompletionList))
        if query is not None:
            self._complete_paths(query)

    @work(group="complete", exclusive=True)
    async def _complete_paths(self, query: str) -> None:
        await self.completion.list_mentions(query, self.query_one(CompletionList))

    # ------------------------------------------------------------------ the queue, interrupts, rewinds, asks

    async def on_pending_input_strip_picked(self, message: PendingInputStrip.Picked) -> None:
        await self.queue_edits.picked(message)

    async def on_pending_input_strip_reordered(self, message: PendingInputStrip.Reordered) -> None:
        await self.queue_edits.reorder(message.order)

    def on_pending_input_strip_left(self) -> None:
        self.query_one(PromptInput).focus()

    async def withdraw_last(self) -> None:
        await self.queue_edits.withdraw_last()

    async def interrupt(self, reason: str = "user") -> bool:
        """Esc: interrupt a running session (pending input stays pending)."""
        if not self.is_active or self.session_id is None:
            return False
        self.interrupting = True
        self.paint_chrome()
        self.run_worker((await self.services.ready()).interrupt(self.session_id, reason), group="interrupt")
        return True

    async def interrupt_and_wait(self) -> None:
        """Interrupt and return once the session's terminal event is durable (before a rewind)."""
        if self.session_id is not None:
            self.interrupting = True
            self.paint_chrome()
            await (await self.services.ready()).interrupt(self.session_id, "user")

    async def rewind(self, choice: RewindChoice) -> None:
        """Do what the rewind list chose; the prompt's text comes back into the prompt box."""
        sessions = await self.services.ready()
        try:
            sid = self.shown_session_id  # the rewind list is offered for the session on screen
            if choice.action == UNDO:
                result = await sessions.undo_rewind(sid)
            else:
                result = await sessions.rewind(sid, choice.prompt_id, choice.action)
        except Exception as error:  # the facade's one-line reason; nothing was changed
            self.app.notify(f"rewind failed: {error}", severity="error")
            return
        if choice.action in ("both", "conversation") and result.prompt is not None:
            prompt = self.query_one(PromptInput)
            prompt.load_text(result.prompt)
            prompt.move_cursor(prompt.document.end)
            prompt.focus()
        self.app.notify(rewind_summary(result))

    def on_prompt_input_scroll_transcript(self, message: PromptInput.ScrollTranscript) -> None:
        view = self.query_one(TranscriptView)
        # At once, not animated: an animated page-up starts at the bottom, where a repaint in its first
        # frames (the 1 s liveness poll) found the view still following and put it back.
        page = view.scrollable_content_region.height
        view.scroll_to(y=view.scroll_y + message.pages * page, animate=False, immediate=True)

    def on_permission_panel_typed(self, message: PermissionPanel.Typed) -> None:
        self.query_one(PromptInput).insert(message.character)

    async def on_permission_panel_answered(self, message: PermissionPanel.Answered) -> None:
        panel = self.query_one(PermissionPanel)
        try:
            await (await self.services.ready()).permissions.reply(
                message.request_id, message.reply.value, message.message
            )
        except Exception as error:
            self.app.notify(f"reply failed: {error}", severity="error")
            return
        self._answered.add(message.request_id)
        if message.mode is not None and self.session_id is not None:  # ``e``: edits, for this session only
            (await self.services.ready()).choose_approval(self.session_id, message.mode)
            self.app.notify(f"approval: {message.mode} for this session (Alt+A changes it)")
        panel.show_ask(None)
        self.query_one(PromptInput).focus()
        self.paint_chrome()
