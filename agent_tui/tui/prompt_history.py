"""The prompts a user sent in one project, kept across launches for Up/Down and the history search.

They live in a small SQLite file of agent-tui's own (``prompt-history.db`` under the data
directory, ``AGENT_TUI_HOME`` when set), never in the project, one row per prompt keyed by
the project root. SQLite because two TUIs in one project write at once: WAL and a busy
timeout serialise their inserts, where an append-only file would need locking of its own
to trim it. Each project keeps its newest :data:`CAP` distinct prompts; sending a prompt
again moves it to the newest place (duplicates collapse).

Not recorded (see :func:`recordable`): a prompt that starts with a space (as shells do with
``HISTCONTROL=ignorespace``: the way to keep one line out), one longer than
:data:`MAX_CHARS`, and a slash command whose arguments hold a word that looks like a key or
token — it is kept as the bare ``/name``.

The file is read and written in a thread (the app calls :meth:`PromptHistory.load` and
:meth:`PromptHistory.save` through ``asyncio.to_thread``); Up/Down read only the list in
memory, so a keystroke never waits for the disk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when the file is first read, in a thread: not on the first frame's path
    import sqlite3

CAP = 1000
"""Distinct prompts kept per project (the oldest go first)."""
MAX_CHARS = 16_384
"""A longer prompt (a big paste) is not recorded."""
FILE_NAME = "prompt-history.db"
BUSY_MS = 5000

KEY_PREFIXES = ("sk-", "sk_", "ghp_", "gho_", "ghs_", "github_pat_", "xox", "AKIA", "AIza", "glpat-", "hf_")
_TOKENISH = re.compile(r"[A-Za-z0-9_\-+/=.]{20,}")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS prompts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS prompts_by_project ON prompts (project, id);
"""


class HistoryUnavailable(Exception):
    """The history file cannot be read or written; ``str()`` says why (the list stays in memory)."""


def looks_like_key(word: str) -> bool:
    """A word with a known key prefix, or 20+ token characters mixing letters and digits."""
    if word.startswith(KEY_PREFIXES) and len(word) >= 12:
        return True
    return bool(_TOKENISH.fullmatch(word)) and any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def recordable(text: str) -> str | None:
    """What of a sent prompt goes into the history, or None for nothing (see the module's rules)."""
    if not text.strip() or text.startswith(" ") or len(text) > MAX_CHARS:
        return None
    if text.startswith("/") and not text.startswith("//"):
        name, _, arguments = text.partition(" ")
        if any(looks_like_key(word.strip("'\"")) for word in arguments.split()):
            return name
    return text


def collapse(entries: Iterable[str]) -> list[str]:
    """Oldest first, each text once, at its newest place."""
    newest: dict[str, None] = {}
    for text in entries:
        newest.pop(text, None)
        newest[text] = None
    return list(newest)


class PromptHistory:
    """One project's prompts, oldest first: the list Up/Down walk, and its file."""

    def __init__(self, project: str, path: Path | None) -> None:
        self.project = project
        self.path = path  # None: in memory only (no data directory, or the file failed)
        self.entries: list[str] = []
        self.loaded = False

    @classmethod
    def for_location(cls, location: str) -> PromptHistory:
        """The history of the project ``location`` is in (its root: the nearest ``.git``). Blocking."""
        from agent_tui.core.api import paths

        return cls(str(paths.project_root(Path(location))), paths.data_dir() / FILE_NAME)

    def add(self, text: str) -> str | None:
        """Record a sent prompt in memory; the text to :meth:`save`, or None when it is not kept."""
        kept = recordable(text)
        if kept is not None:
            if kept in self.entries:
                self.entries.remove(kept)
            self.entries.append(kept)
            del self.entries[:-CAP]
        return kept

    def _connect(self) -> sqlite3.Connection:
        import sqlite3

        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None)
        connection.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")  # WAL: a power cut may lose the newest prompt, no more
        connection.executescript(_SCHEMA)
        return connection

    def load(self) -> None:
        """Read the project's prompts (blocking); prompts added before stay the newest.
        Raises :class:`HistoryUnavailable` when the file cannot be read."""
        stored: list[str] = []
        if self.path is not None:
            try:
                with closing(self._connect()) as connection:
                    rows = connection.execute(
                        "SELECT text FROM prompts WHERE project = ? ORDER BY id DESC LIMIT ?", (self.project, CAP)
                    ).fetchall()
            except Exception as error:  # sqlite3.Error or OSError (sqlite3 is not imported up here)
                raise unavailable(error) from error
            stored = [text for (text,) in reversed(rows)]
        self.entries = collapse([*stored, *self.entries])[-CAP:]
        self.loaded = True

    def save(self, text: str) -> None:
        """Append ``text`` as the project's newest prompt, drop its older copy and what is past the cap
        (blocking; one transaction, so a second TUI's writes wait for it). Raises :class:`HistoryUnavailable`."""
        if self.path is None:
            return
        try:
            with closing(self._connect()) as connection:
                connection.execute("BEGIN IMMEDIATE")
                try:
                    connection.execute("DELETE FROM prompts WHERE project = ? AND text = ?", (self.project, text))
                    connection.execute("INSERT INTO prompts (project, text) VALUES (?, ?)", (self.project, text))
                    connection.execute(
                        "DELETE FROM prompts WHERE project = ? AND id NOT IN "
                        "(SELECT id FROM prompts WHERE project = ? ORDER BY id DESC LIMIT ?)",
                        (self.project, self.project, CAP),
                    )
                    connection.execute("COMMIT")
                except BaseException:
                    connection.execute("ROLLBACK")
                    raise
        except Exception as error:  # sqlite3.Error or OSError
            raise unavailable(error) from error

    def search(self, query: str) -> list[str]:
        """Newest first, the prompts holding every word of ``query`` (any case)."""
        words = query.lower().split()
        return [text for text in reversed(self.entries) if all(word in text.lower() for word in words)]


def unavailable(error: Exception) -> Exception:
    """A file or database failure as :class:`HistoryUnavailable`; anything else (a bug) unchanged."""
    import sqlite3

    return HistoryUnavailable(str(error)) if isinstance(error, (sqlite3.Error, OSError)) else error
