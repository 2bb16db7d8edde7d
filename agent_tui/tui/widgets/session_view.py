"""One session on screen: transcript, plan, pending strip, permission panel, prompt, status.

The view composes the widgets and turns input into facade calls; what the
transcript holds and when it repaints is its :class:`SessionFeed`'s work, which
it serves as the feed's :class:`FeedView`. A session with no id yet is created
on its first prompt, so opening the app never leaves an empty session behind.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.message import Message

from agent_tui.tui.choices import Choice
from agent_tui.tui.command_registry import Command, CommandError, parse_command, slash_choices
from agent_tui.tui.file_index import mention
from agent_tui.tui.mcp_view import count_label, ready_count
from agent_tui.tui.mention_index import MentionIndex
from agent_tui.tui.prompt_history import PromptHistory
from agent_tui.tui.resource_choices import resource_choices, server_choices
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
from agent_tui.tui.widgets.status import StatusBar, StatusInputs
from agent_tui.tui.widgets.transcript import FeedHost, NewOutputHint, TranscriptView
from agent_tui.vocab.kinds import ApprovalMode, Delivery

if TYPE_CHECKING:
    from agent_tui.core.api import SessionRecord
    from agent_tui.tui.port import SessionsPort


def rewind_summary(result: object) -> str:
    """One notice: what was rewound and which files changed."""
    changed = list(getattr(result, "changed", []))
    head = "rewind undone" if getattr(result, "mode", None) is None else "rewound"
    files = ", ".join(f"{c.path} ({c.change})" for c in changed[:5]) + (" …" if len(changed) > 5 else "")
    said = [f"{len(changed)} file(s) changed: {files}" if changed else "", getattr(result, "note", None) or ""]
    return f"{head}: " + ("; ".join(part for part in said if part) or "no file changed")


def _session_id(created: SessionRecord | str) -> str:
    return created if isinstance(created, str) else str(created.id)


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
        self._sending = asyncio.Lock()  # prompts leave in the order typed; the first one creates the session
        # Asks answered here whose reply is not in the log yet: the panel closes at once, while the
        # transcript keeps the ask until the durable reply (which also restarts the tool's clock).
        self._answered: set[str] = set()
        self._files: MentionIndex | None = None  # the paths for @ completion, made on the first @
        self._wanted: tuple[str, str] | None = None  # what the completion list answers
        self._asked: tuple[str, str] | None = None  # (prompt, folder) whose external_directory ask was shown

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
        """``!command``: the session's bash tool runs it (no model step); the model sees it next turn."""
        if not command:
            self._keep(text, "! needs a command: !ls -la", "error")
            return
        async with self._sending:
            try:
                sessions = await self.services.ready_to_run()
                session_id = self.session_id or await self._new_session(sessions)
                await sessions.shell(session_id, command)
            except Exception as error:  # the facade's one-line reason
                self._keep(text, f"not run: {error}", "error")

    def _activity_counters(self) -> tuple[int, int]:
        """What ends a turn and what it streamed, for the activity line."""
        t = self.transcript
        return t.facts.executions_ended, t.streamed_chars

    @work(group="send")
    async def send(self, text: str, delivery: Delivery) -> None:
        if not self.is_active and not self.transcript.facts.queue_paused:  # it will run: the clock starts
            self.query_one(ActivityLine).begin()
        async with self._sending:
            await self._send(text, delivery)

    async def _send(self, text: str, delivery: Delivery) -> None:
        from agent_tui.core.api import NeedsApproval

        try:
            sessions = await self.services.ready_to_run()
            parts = await self._parts(text)  # before the session exists: a bad mention sends nothing
            if self.services.runner_error:
                self.app.notify(self.services.runner_error, severity="error")
            session_id = self.session_id or await self._new_session(sessions)
            await sessions.prompt(session_id, parts, delivery=delivery.value)
        except NeedsApproval as asked:  # the user's answer is sending the same prompt again
            self._asked = (text, asked.directory)
            self._keep(text, f"{asked} — press Enter again to attach it once", "warning")
        except Exception as error:  # the facade's one-line reason, and the text stays recallable
            self._keep(text, f"not sent: {error}", "error")

    async def _new_session(self, sessions: SessionsPort) -> str:
        """The session the first prompt (or ``!`` command) goes to, in the model, agent and
        approval mode the status bar shows."""
        created = await sessions.create(
            location=self.services.location, model=self.services.model, agent=self.services.agent
        )
        session_id = _session_id(created)
        sessions.choose_approval(session_id, ApprovalMode(self.services.approval))
        self.feed.adopt(session_id)
        return session_id

    def _keep(self, text: str, why: str, severity: str) -> None:
        self.app.notify(why, severity=severity)  # type: ignore[arg-type]
        if not self.is_active:  # not sent: nothing runs
            self.query_one(ActivityLine).cancel()
        prompt = self.query_one(PromptInput)
        if not prompt.text:
            prompt.load_text(text)
            prompt.move_cursor(prompt.document.end)

    async def _parts(self, text: str) -> list:
        """The durable prompt: the text, then every file, folder and image it mentions (a subagent's
        mention: the guidance to hand it the work)."""
        from agent_tui.core.api import events as ev  # once the core is open: the models' module imports pydantic

        if "@" not in text:
            return ev.text_prompt(text)
        from agent_tui.core.api import attach_policy, build_prompt, vision_check

        approved = [self._asked[1]] if self._asked and self._asked[0] == text else []
        policy = attach_policy(
            self.services.settings, self.services.agent, approved=approved, location=self.services.location
        )
        reader = getattr(self.services.mcp, "mcp_reader", None)  # the runtime, once it is up
        return await build_prompt(
            text,
            self.services.location,
            policy=policy,
            vision=vision_check(self.services.settings, self.services.model),
            resources=reader(self.services.location, self.services.agent) if reader is not None else None,
        )

    # ------------------------------------------------------------------ completion

    def on_text_area_changed(self) -> None:
        self._update_completion()

    def on_text_area_selection_changed(self) -> None:
        self._update_completion()

    def _update_completion(self) -> None:
        prompt, completion = self.query_one(PromptInput), self.query_one(CompletionList)
        wanted = prompt.completing()
        if wanted is None:
            self._wanted = None
            completion.close()
            return
        if wanted == self._wanted:
            return
        self._wanted = wanted
        kind, query = wanted
        if kind == "/":
            choices = slash_choices(query, self.services.command_specs())
            completion.show_choices(choices, None if choices else f"no command /{query}")
        else:
            self._complete_paths(query)

    @work(group="complete", exclusive=True)
    async def _complete_paths(self, query: str) -> None:
        completion = self.query_one(CompletionList)
        resources = await self._mcp_resources()
        linked = resource_choices(query, resources)
        if linked is not None:  # ``@server:…``: that server's resources, not files
            if self._wanted == ("@", query):
                completion.show_choices(linked, f"no resource of {query.partition(':')[0]} matches")
            return
        if self._files is None:
            self._files = MentionIndex(self.services.location, self._reference_roots(), clock=self.services.clock)
            completion.show_choices([], "listing the project's files…")
        try:
            paths = await self._files.search(query)
        except Exception as error:  # an unreadable tree: say so in the list, the prompt still works
            completion.show_choices([], f"cannot list files: {error}")
            return
        if self._wanted == ("@", query):
            choices = [
                *self._subagent_choices(query, paths),
                *server_choices(query, resources),
                *(Choice(mention(p), p) for p in paths),
            ]
            completion.show_choices(choices, f"no file matches {query!r}")

    async def _mcp_resources(self) -> dict[str, list]:
        """What each ready MCP server the agent uses listed (the connections keep it, listed again when
        a server says it changed); none before the runtime is up."""
        mcp = self.services.mcp
        if mcp is None or not hasattr(mcp, "mcp_resources"):
            return {}
        try:
            found: dict[str, list] = await mcp.mcp_resources(self.services.location, self.services.agent)
        except Exception:  # noqa: BLE001 - an invalid config: the files are still offered
            return {}
        return found

    def _subagent_choices(self, query: str, paths: list[str]) -> list[Choice]:
        """The subagents the selected agent may hand work to whose name starts with ``query``: a group
        above the files (they are few), each but one a file or folder of that name would win on send."""
        settings = self.services.settings
        if settings is None:
            return []
        from agent_tui.core.api import callable_subagents

        taken = {p.rstrip("/") for p in paths}
        return [
            Choice(mention(name), name, f"subagent · {settings.agent_settings(name).description}".rstrip(" ·"))
            for name in callable_subagents(settings, self.services.agent)
            if name.lower().startswith(query.lower()) and name not in taken
        ]

    def _reference_roots(self) -> dict[str, Path]:
        """The configured reference folders (``[references.NAME]``), once the settings are known."""
        settings = self.services.settings
        if settings is None or not settings.references:
            return {}
        from agent_tui.core.api import paths

        return settings.reference_roots(paths.project_root(Path(self.services.location)))

    async def on_pending_input_strip_picked(self, message: PendingInputStrip.Picked) -> None:
        """Edit (withdraw, into the prompt), withdraw, or re-send a queued item as a steer."""
        item = message.item
        if not await self._withdraw(item.input_id):
            return
        prompt = self.query_one(PromptInput)
        match message.action:
            case "edit":
                prompt.load_text(item.text + (f"\n{prompt.text}" if prompt.text else ""))
                prompt.move_cursor(prompt.document.end)
                prompt.focus()
            case "steer":
                try:
                    sessions = await self.services.ready()
                    await sessions.prompt(self.shown_session_id, item.prompt, delivery=Delivery.STEER.value)
                except Exception as error:  # withdrawn but not re-sent: the text goes back to the prompt
                    self._keep(item.text, f"not sent: {error}", "error")

    async def on_pending_input_strip_reordered(self, message: PendingInputStrip.Reordered) -> None:
        try:
            await (await self.services.ready()).reorder_queue(self.shown_session_id, message.order)
        except Exception as error:  # the queue moved on meanwhile (an item was promoted)
            self.app.notify(f"cannot reorder: {error}", severity="warning")

    def on_pending_input_strip_left(self) -> None:
        self.query_one(PromptInput).focus()

    async def withdraw_last(self) -> None:
        pending = self.transcript.pending_inputs
        if pending:
            await self._withdraw(pending[-1].input_id)

    async def _withdraw(self, input_id: str) -> bool:
        try:
            await (await self.services.ready()).withdraw(self.shown_session_id, input_id)
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
