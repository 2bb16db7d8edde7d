"""The prompt: a multi-line ``TextArea`` where Enter sends and Tab queues.

``TextArea`` inserts a newline in ``_on_key``, so Enter-to-send is handled there
too, in the widget's own key queue: a priority binding would run before keys
typed just ahead of Enter reach the text (a fast paste or a tmux ``send-keys``
would send half a line). Shift+Enter and Ctrl+J (which many terminals cannot
tell apart) insert the newline instead. Up/Down recall history only at the first/last line, so
moving inside a multi-line draft still works; the history is the project's, kept across launches
(``prompt_history``), and Ctrl+S searches it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from agent_tui.tui.file_index import mention
from agent_tui.tui.prompt_history import CAP, HistoryUnavailable, PromptHistory, collapse
from agent_tui.tui.widgets.completion import CompletionList
from agent_tui.tui.widgets.pending import PendingInputStrip
from agent_tui.vocab.kinds import Delivery

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def pasted_image_path(text: str) -> str | None:
    """A paste that is one image path (as a terminal drops a file: maybe quoted, spaces escaped)."""
    line = text.strip()
    if not line or "\n" in line or len(line) > 4096:
        return None
    if len(line) > 1 and line[0] == line[-1] and line[0] in "'\"":
        line = line[1:-1]
    line = line.replace("\\ ", " ")
    if line.startswith("file://"):
        line = line[len("file://") :]
    is_path = line.startswith(("/", "~", "./", "../"))
    return line if is_path and line.lower().endswith(IMAGE_SUFFIXES) else None


IDLE_PLACEHOLDER = "Ask anything · Enter send · Shift+Enter new line · F1 keys"
RUNNING_PLACEHOLDER = "Steer the agent · Enter steer · Tab queue · Esc interrupt"
HISTORY_WAIT_S = 1.0
"""How long Up or Ctrl+S, pressed before the history file is read, waits for it: the read takes
milliseconds, so this is only reached with the file locked, and then the keys go on without it."""


class PromptInput(TextArea):
    BINDINGS = [  # enter/tab/newline are handled in _on_key; listed here for the footer and help
        Binding("enter", "submit('steer')", "send", tooltip="send (while running: steer into the next step)"),
        Binding("tab", "submit('queue')", "queue", tooltip="queue until the turn ends (idle: send)"),
        Binding(
            "shift+enter,ctrl+j",
            "newline",
            "newline",
            show=False,
            tooltip="new line (or \\ then Enter, where the terminal cannot send Shift+Enter)",
        ),
        Binding(
            "up",
            "history(-1)",
            show=False,
            tooltip="previous prompt (at the first line); with input pending: into the pending strip",
        ),
        Binding(
            "down", "history(1)", show=False, tooltip="next prompt (at the last line); past the newest: your draft"
        ),
        Binding(
            "ctrl+s",
            "search_history",
            "history",
            tooltip="search the prompts sent in this project (type to filter, ↑↓ choose, Enter puts it here)",
        ),
        Binding(
            "ctrl+e",
            "expand_pastes",
            "expand paste",
            show=False,
            tooltip="expand the [pasted N lines] chips in the prompt into their text",
        ),
        Binding(
            "alt+up",
            "edit_queued",
            "pending",
            show=False,
            tooltip="select the last queued input in the pending strip (Enter there edits it)",
        ),
        # a prompt is a few lines: these scroll the talk
        Binding("pageup", "scroll_transcript(-1)", show=False, tooltip="scroll the transcript up a page"),
        Binding("pagedown", "scroll_transcript(1)", show=False, tooltip="scroll the transcript down a page"),
    ]

    class Submitted(Message):
        def __init__(self, text: str, delivery: Delivery) -> None:
            super().__init__()
            self.text = text
            self.delivery = delivery

    def __init__(
        self,
        id: str | None = None,
        paste_lines: Callable[[], int] = lambda: 20,
        prompts: Callable[[], PromptHistory] | None = None,
    ) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=IDLE_PLACEHOLDER,
        )
        self._open_history = prompts  # blocking: read in a thread once mounted
        self.prompts = PromptHistory("", None)  # in memory until the project's is read
        self._history_read = asyncio.Event()  # set once the file is read, or failed
        self._saving = asyncio.Lock()  # saved in the order sent (each save is a thread of its own)
        self.paste_lines = paste_lines  # a paste of more lines than this shows as one chip
        self._pastes: dict[str, str] = {}  # chip -> the text it stands for
        self._recall: int | None = None  # index into history while browsing
        self._draft = ""

    def on_mount(self) -> None:
        if self._open_history is not None:
            self.run_worker(self._load_history(self._open_history), group="history", exit_on_error=False)

    async def _load_history(self, open_history: Callable[[], PromptHistory]) -> None:
        try:
            history = await asyncio.to_thread(open_history)
            try:
                await asyncio.to_thread(history.load)
            except HistoryUnavailable as error:
                self.notify(f"prompt history unavailable ({history.path}): {error}; kept in memory", severity="warning")
                history.path, history.loaded = None, True
            early = self.prompts.entries  # sent before the file was read: the newest, and saved now
            history.entries = collapse([*history.entries, *early])[-CAP:]
            self.prompts = history
        finally:
            self._history_read.set()
        for text in early:
            await self._save_history(text)

    async def history_read(self) -> None:
        """Wait, at most :data:`HISTORY_WAIT_S`, for the project's history file to be read.

        A launch paints its prompt before the file is read (in a thread), and a user (or tmux)
        may press Up at once: that Up must recall the last launch's prompt, not do nothing.
        Awaited in the prompt's own action, so keys typed after it wait their turn."""
        if self._open_history is None or self._history_read.is_set():
            return
        try:
            await asyncio.wait_for(self._history_read.wait(), HISTORY_WAIT_S)
        except TimeoutError:
            pass

    async def _save_history(self, text: str) -> None:
        history = self.prompts
        if history.path is None:
            return
        try:
            async with self._saving:
                await asyncio.to_thread(history.save, text)
        except HistoryUnavailable as error:
            self.notify(f"prompt not saved to the history ({history.path}): {error}", severity="warning")
            history.path = None  # told once: the rest of this run keeps it in memory

    KEY_ACTIONS = {"enter": "steer", "tab": "queue"}
    COMPLETION_KEYS = {"up": -1, "down": 1}

    completion: CompletionList | None = None
    """Set by the view: while it is open, Up/Down/Tab/Enter/Esc work it."""
    pending: PendingInputStrip | None = None
    """Set by the view: Up from the first line (or Alt+Up) moves into it when it has items."""

    async def _on_key(self, event: events.Key) -> None:
        if self.completion is not None and self.completion.display and self._complete_key(event.key):
            event.stop()
            event.prevent_default()
        elif event.key == "enter" and self._backslash_before_cursor():
            event.stop()  # ``\`` + Enter: a new line where the terminal cannot send Shift+Enter
            event.prevent_default()
            row, col = self.cursor_location
            self.replace("\n", (row, col - 1), (row, col))
        elif event.key in self.KEY_ACTIONS:
            event.stop()
            event.prevent_default()
            self.action_submit(self.KEY_ACTIONS[event.key])
        elif event.key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            self.action_newline()
        elif event.key.startswith("alt+") and event.is_printable:
            # A terminal sends Alt+P as ESC P, which Textual reports as the key "alt+p" with the
            # character "p": TextArea would type it and stop the key, so the app's Alt bindings
            # (pause, withdraw, plan, subagent) never ran outside tests. Not typed, the key bubbles
            # up to them.
            event.prevent_default()
        else:
            await super()._on_key(event)

    def _backslash_before_cursor(self) -> bool:
        row, col = self.cursor_location
        return col > 0 and self.selection.is_empty and self.document.get_line(row)[col - 1] == "\\"

    def show_running(self, running: bool) -> None:
        """The placeholder says what Enter does now: send, or steer the running agent."""
        self.placeholder = RUNNING_PLACEHOLDER if running else IDLE_PLACEHOLDER

    def _complete_key(self, key: str) -> bool:
        assert self.completion is not None
        if key in self.COMPLETION_KEYS:
            self.completion.move(self.COMPLETION_KEYS[key])
            return True
        if key == "escape":
            self.completion.close()
            return True
        choice = self.completion.current
        if key in ("tab", "enter") and choice is not None:
            self.accept(choice.value)
            if key == "enter" and choice.complete:
                self.completion.close()
                self.action_submit("steer")
            return True
        return False

    def completing(self) -> tuple[str, str] | None:
        """``("@", query)`` with the cursor in an ``@`` mention, ``("/", query)`` in a leading
        command name, else None."""
        found = self._token()
        if found is None:
            return None
        token, (row, col) = found
        if token.startswith("@"):
            return "@", token[1:].lstrip('"')
        if token.startswith("/") and row == 0 and col == 0 and "/" not in token[1:]:
            return "/", token[1:]
        return None

    def _token(self) -> tuple[str, tuple[int, int]] | None:
        row, col = self.cursor_location
        if self.selection.start != self.selection.end:
            return None
        before = self.document.get_line(row)[:col]
        start = max(before.rfind(" "), before.rfind("\t")) + 1
        token = before[start:]
        if not token or (start and before[start - 1] == "\\"):
            return None
        return token, (row, start)

    def accept(self, value: str) -> None:
        """Replace the token before the cursor with ``value`` (an ``@path`` or ``/name``)."""
        found = self._token()
        if found is None:
            return
        _, start = found
        self.replace(value, start, self.cursor_location)
        if self.completion is not None and not value.endswith(("/", ":")):
            self.completion.close()

    def action_submit(self, delivery: str) -> None:
        text = self.full_text()
        if not text.strip():
            return
        kept = self.prompts.add(text)
        if kept is not None and self.prompts.loaded:  # before, the load saves it
            self.run_worker(self._save_history(kept), group="history", exit_on_error=False)
        self._recall = None
        self.clear()
        self._pastes.clear()
        self.post_message(self.Submitted(text, Delivery(delivery)))

    async def _on_paste(self, event: events.Paste) -> None:
        """A long paste becomes one ``[pasted N lines]`` chip; a pasted image path an ``@`` mention."""
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")  # a terminal may send CR line ends
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        image = pasted_image_path(text)
        if image is not None:
            event.prevent_default()
            event.stop()
            self.replace(mention(image), *self.selection)
        elif lines > self.paste_lines() and not self.read_only:
            event.prevent_default()
            event.stop()
            chip = f"[pasted {lines} lines]"
            number = 2
            while chip in self._pastes:
                chip, number = f"[pasted {lines} lines #{number}]", number + 1
            self._pastes[chip] = text
            self.replace(chip, *self.selection)
        # else TextArea's own handler (next in the MRO) pastes the text

    def full_text(self) -> str:
        """The prompt with every paste chip replaced by its text (what is sent)."""
        text = self.text
        for chip, pasted in self._pastes.items():
            text = text.replace(chip, pasted)
        return text

    def action_expand_pastes(self) -> None:
        if any(chip in self.text for chip in self._pastes):
            self.load_text(self.full_text())
            self._pastes.clear()
            self.move_cursor(self.document.end)

    def action_newline(self) -> None:
        self.insert("\n")

    async def action_history(self, direction: int) -> None:
        row, _ = self.cursor_location
        at_edge = row == 0 if direction < 0 else row == self.document.line_count - 1
        if at_edge and direction < 0 and self._recall is None and self.pending is not None and self.pending.enter():
            return
        if at_edge and direction < 0:
            await self.history_read()
        sent = self.prompts.entries
        if not at_edge or not sent:
            self.action_cursor_up() if direction < 0 else self.action_cursor_down()
            return
        if self._recall is None:
            if direction > 0:
                return
            self._draft, self._recall = self.text, len(sent)
        self._recall += direction
        if self._recall < 0:
            self._recall = 0
            return
        if self._recall >= len(sent):
            self._recall = None
            self.load_text(self._draft)
        else:
            self.load_text(sent[self._recall])
        self.move_cursor(self.document.end if direction > 0 else (0, 0))

    class ScrollTranscript(Message):
        def __init__(self, pages: int) -> None:
            super().__init__()
            self.pages = pages

    def action_scroll_transcript(self, pages: int) -> None:
        self.post_message(self.ScrollTranscript(pages))

    def action_edit_queued(self) -> None:
        if self.pending is not None:
            self.pending.enter(at_last_queued=True)

    class SearchHistory(Message):
        """Ctrl+S: open the history search over this prompt (the app opens screens)."""

        def __init__(self, prompt: PromptInput) -> None:
            super().__init__()
            self.prompt = prompt

    async def action_search_history(self) -> None:
        await self.history_read()
        self.post_message(self.SearchHistory(self))

    def take_from_history(self, text: str | None) -> None:
        """The search's choice replaces the prompt; Down walks on from it to the draft (None: cancelled)."""
        if text is not None:
            if self._recall is None:
                self._draft = self.text
            entries = self.prompts.entries
            self._recall = entries.index(text) if text in entries else None
            self.load_text(text)
            self.move_cursor(self.document.end)
        self.focus()
