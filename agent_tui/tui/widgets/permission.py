"""An inline permission ask above the prompt: the command or diff, and the answer keys.

It takes focus when it appears, but for a short grace period keys go on to the
prompt, so a keystroke the user meant for the prompt neither answers the ask
nor gets lost. The keys are docked at the panel's foot, so a diff of any size
scrolls inside the panel (PageUp/PageDown) and never pushes them off screen; the
"always" key names exactly what it will save (:mod:`~agent_tui.vocab.approval_words`).
"""

from __future__ import annotations

import json

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from agent_tui.tui.transcript.records import PermissionAsk
from agent_tui.tui.widgets.diff import render_patch
from agent_tui.vocab.approval_words import describe_approvals
from agent_tui.vocab.clock import Clock
from agent_tui.vocab.kinds import ApprovalMode, PermissionReply
from agent_tui.vocab.terminal_text import inert


def describe_ask(ask: PermissionAsk) -> tuple[str, str]:
    """(what the agent wants to do, the body to show): a command, an MCP call's arguments, the resources."""
    detail = ask.detail
    if ask.action == "mcp" and isinstance(detail.get("server"), str):
        arguments = json.dumps(detail.get("arguments") or {}, ensure_ascii=False, indent=2)
        return f"call {detail.get('tool')} on MCP server {detail['server']}", f"arguments: {arguments}"
    what = "run a command" if ask.action == "bash" else ask.action
    command = detail.get("command") if isinstance(detail.get("command"), str) else None
    return what, command or "\n".join(ask.resources) or ask.action


def answer_keys(ask: PermissionAsk, offer_edits: bool) -> Text:
    """The keys line: what ``a`` saves in so many words (the save patterns the gate will store)."""
    keys = Text()
    saves = describe_approvals(ask.action, ask.save) if ask.save else "this"
    parts = [("y", "once"), ("a", f"always allow {saves} in this project")]
    if offer_edits:
        parts.append(("e", "allow all edits in this project for this session"))
    parts += [("n", "reject"), ("m", "reject with message")]
    for n, (key, words) in enumerate(parts):
        keys.append("  " if n else "")
        keys.append(key, style="bold")
        keys.append(f" {inert(words)}")
    return keys


class PermissionPanel(Vertical, can_focus=True):
    BINDINGS = [  # answered in on_key (after the grace period, unless the message field is open); listed for help
        Binding("y", "answer('once')", "once", show=False, tooltip="permission: allow once"),
        Binding("a", "answer('always')", "always", show=False, tooltip="permission: always, for this project"),
        Binding(
            "e",
            "answer('once', 'auto-edit')",
            "edits this session",
            show=False,
            tooltip="permission: allow this, and every edit in this project for the rest of this session",
        ),
        Binding("n", "answer('reject')", "reject", show=False, tooltip="permission: reject (the run stops)"),
        Binding(
            "m",
            "write_reason",
            "reject with message",
            show=False,
            tooltip="permission: reject with a message (the run goes on)",
        ),
    ]
    KEYS = {binding.key: binding.action for binding in BINDINGS if isinstance(binding, Binding)}  # all are

    class Answered(Message):
        def __init__(
            self,
            request_id: str,
            reply: PermissionReply,
            message: str | None = None,
            mode: ApprovalMode | None = None,
        ) -> None:
            super().__init__()
            self.request_id = request_id
            self.reply = reply
            self.message = message
            self.mode = mode
            """An approval mode the session switches to after this reply (``e``: auto-edit)."""

    class Toggled(Message):
        """The panel opened or closed (the app holds its notices while it is open)."""

        def __init__(self, open: bool) -> None:
            super().__init__()
            self.open = open

    class Typed(Message):
        """A character typed during the grace period: it belongs to the prompt."""

        def __init__(self, character: str) -> None:
            super().__init__()
            self.character = character

    def __init__(self, clock: Clock, grace_s: float, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.grace_ms = int(grace_s * 1000)
        self.ask: PermissionAsk | None = None
        self.shown_at = 0
        self.offer_edits = False
        self.display = False

    def compose(self) -> ComposeResult:
        yield Static(classes="permission-title")
        yield Static(classes="permission-why")
        with Vertical(classes="permission-foot"):  # docked: always on screen, whatever the body's size
            yield Static(classes="permission-keys")
            yield Input(placeholder="why not? (Enter sends, Esc cancels)", classes="permission-message")
        with VerticalScroll(classes="permission-scroll", can_focus=False):
            yield Static(classes="permission-body")

    def on_mount(self) -> None:
        self.query_one(Input).display = False

    def show_ask(
        self, ask: PermissionAsk | None, patch: str | None = None, who: str | None = None, *, offer_edits: bool = False
    ) -> None:
        """Show ``ask`` (None hides); the same ask again changes nothing. ``who``: the subagent asking
        (``the build subagent (look around)``), when it is not this session's own agent. ``offer_edits``:
        offer ``e``, every edit in this project for the rest of the session (an edit asked in ``ask`` mode)."""
        if ask is not None and self.ask is not None and ask.request_id == self.ask.request_id:
            return
        self.ask = ask
        if self.display != (ask is not None):  # to the app itself: posted here it would stop at the session
            self.app.post_message(self.Toggled(ask is not None))  # view, which calls show_ask (its sender)
        self.display = ask is not None
        if ask is None:
            return
        self.shown_at = self.clock.now_ms()
        what, text = describe_ask(ask)
        asker = inert(who) if who else "the agent"
        self.query_one(".permission-title", Static).update(
            Text(f"⚑ {asker[0].upper()}{asker[1:]} wants to {inert(what)}", style="bold")
        )
        why = ask.detail.get("description")
        said = self.query_one(".permission-why", Static)
        said.display = isinstance(why, str) and bool(why.strip())
        said.update(Text(inert(why.strip()) if isinstance(why, str) else "", style="italic"))
        body = self.query_one(".permission-body", Static)
        body.update(render_patch(patch, self.app.theme_variables) if patch is not None else Text(inert(text)))
        self.query_one(".permission-scroll", VerticalScroll).scroll_home(animate=False)
        self.offer_edits = offer_edits and ask.action == "edit"
        self.query_one(".permission-keys", Static).update(answer_keys(ask, self.offer_edits))
        self.query_one(Input).display = False
        self.focus()

    @property
    def in_grace(self) -> bool:
        return self.clock.now_ms() - self.shown_at < self.grace_ms

    async def on_key(self, event: events.Key) -> None:
        field = self.query_one(Input)
        if field.display and event.key == "escape":
            event.stop()
            field.display, field.value = False, ""
            self.focus()
            return
        if self.ask is None or field.display:
            return
        if self.in_grace and event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            self.post_message(self.Typed(event.character))
            return
        if event.key in ("pageup", "pagedown", "home", "end"):
            event.stop()
            scroll = self.query_one(".permission-scroll", VerticalScroll)
            getattr(scroll, f"scroll_{event.key.replace('page', 'page_')}")(animate=False)
            return
        if event.key not in self.KEYS:
            return
        event.stop()
        event.prevent_default()
        if event.key == "e" and not self.offer_edits:
            return
        await self.run_action(self.KEYS[event.key])

    def action_answer(self, reply: str, mode: str | None = None) -> None:
        if mode is not None and not self.offer_edits:
            return
        if self.ask is not None and not self.query_one(Input).display:
            chosen = ApprovalMode(mode) if mode else None
            self.post_message(self.Answered(self.ask.request_id, PermissionReply(reply), mode=chosen))

    def action_write_reason(self) -> None:
        """Open the field for a rejection's message."""
        if self.ask is not None:
            field = self.query_one(Input)
            field.display = True
            field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.ask is not None:
            self.post_message(self.Answered(self.ask.request_id, PermissionReply.REJECT, event.value.strip() or None))
