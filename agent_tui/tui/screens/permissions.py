"""``/permissions``: what this project lets through without asking, and this session's approval mode.

Each row is an approval an "always" answer saved (``core.api.ApprovalRecord``), in the words the
permission panel used when it offered to save it; ``d`` (or Delete) revokes the highlighted one, so
what it allowed is asked again from the next check. The same list is ``agent-tui permissions list``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.vocab.approval_words import describe_approval
from agent_tui.vocab.terminal_text import inert

KEYS = "d revokes the highlighted approval  ·  Esc closes"
EMPTY = 'Nothing saved: answer "a" (always) to a permission ask to save one.'

Revoke = Callable[[str, str], Awaitable[Any]]


def approval_option(approval: Any) -> Text:
    """``bash  git status *`` over what it allows and when it was saved (dim)."""
    saved = datetime.fromtimestamp(approval.created / 1000).strftime("%Y-%m-%d %H:%M")
    return Text.assemble(
        (inert(approval.action), "bold"),
        f"  {inert(approval.pattern)}",
        "\n    ",
        (f"{inert(describe_approval(approval.action, approval.pattern))} · saved {saved}", "dim"),
    )


class PermissionsScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "close"),
        Binding("d,delete", "revoke", "revoke"),
    ]

    DEFAULT_CSS = """
    PermissionsScreen { align: center middle; }
    PermissionsScreen #permissions { width: 90%; max-width: 120; height: auto; max-height: 80%;
        border: round $primary; background: $surface; padding: 0 1; }
    PermissionsScreen #permissions-list { height: auto; max-height: 30; border: none; background: $surface; }
    PermissionsScreen .help-title { text-style: bold; color: $primary; }
    PermissionsScreen #permissions-keys { color: $text-muted; }
    """

    def __init__(self, approvals: list[Any], project: str, mode: str, revoke: Revoke) -> None:
        """``approvals``: the project's saved approvals; ``mode``: the session's approval mode;
        ``revoke(action, pattern)`` takes one back in the store."""
        super().__init__()
        self.approvals = list(approvals)
        self.project = project
        self.mode = mode
        self.revoke = revoke

    def compose(self) -> ComposeResult:
        with Vertical(id="permissions"):
            yield Static("Permissions", classes="help-title")
            yield Static(
                inert(f"This session: {self.mode} (Alt+A changes it).  Saved for {self.project}:"),
                id="permissions-mode",
            )
            yield OptionList(*self._options(), id="permissions-list")
            yield Static(EMPTY, id="permissions-empty")
            yield Static(KEYS, id="permissions-keys")

    def _options(self) -> list[Option]:
        return [Option(approval_option(a), id=f"{n}") for n, a in enumerate(self.approvals)]

    def on_mount(self) -> None:
        self._show()
        self.query_one(OptionList).focus()

    def _show(self) -> None:
        listing = self.query_one(OptionList)
        listing.display = bool(self.approvals)
        self.query_one("#permissions-empty").display = not self.approvals

    async def action_revoke(self) -> None:
        listing = self.query_one(OptionList)
        index = listing.highlighted
        if index is None or not self.approvals:
            return
        approval = self.approvals[index]
        try:
            await self.revoke(approval.action, approval.pattern)
        except Exception as error:  # noqa: BLE001 - an unwritable store: one line, the row stays
            self.app.notify(f"could not revoke: {error}", severity="error")
            return
        del self.approvals[index]
        listing.clear_options()
        listing.add_options(self._options())
        if self.approvals:
            listing.highlighted = min(index, len(self.approvals) - 1)
        self._show()
        self.app.notify(inert(f"revoked: {approval.action} {approval.pattern}"))
