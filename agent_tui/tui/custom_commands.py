"""Custom slash commands: markdown prompt files in ``<config dir>/commands/`` and
``<project>/.agent-tui/commands/`` (the project's win on a name clash).

``review.md`` becomes ``/review``. Optional front matter between ``---`` lines
holds ``key: value`` pairs (``description``, ``model``, ``agent``); the body is
the prompt, with ``$ARGUMENTS`` replaced by everything typed after the name and
``$1``…``$9`` by its words (shell quoting). A file that cannot be read is one
error naming it; the others still load. No Textual here.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

KEYS = ("description", "model", "agent")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_POSITIONAL = re.compile(r"\$([1-9])")


class CommandFileError(ValueError):
    """One line naming the file (and the line) and what is wrong."""


@dataclass(frozen=True)
class CustomCommand:
    name: str
    body: str
    path: Path
    description: str = ""
    model: str | None = None
    agent: str | None = None

    @property
    def help(self) -> str:
        return self.description or f"custom command ({self.path.name})"

    def expand(self, arguments: str) -> str:
        """The prompt for ``/name arguments``."""
        try:
            words = shlex.split(arguments)
        except ValueError:  # an unclosed quote: words as typed
            words = arguments.split()
        text = self.body.replace("$ARGUMENTS", arguments.strip())
        return _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text)


def parse_file(path: Path, text: str) -> CustomCommand:
    name = path.stem
    if not _NAME.match(name):
        raise CommandFileError(f"{path}: {name!r} is not a command name (letters, digits, '-', '_', '.')")
    meta: dict[str, str] = {}
    body = text
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        try:
            end = next(i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---")
        except StopIteration:
            raise CommandFileError(f"{path}: the front matter opened on line 1 is never closed with '---'") from None
        for number, line in enumerate(lines[1:end], start=2):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, colon, value = line.partition(":")
            key = key.strip()
            if not colon or key not in KEYS:
                raise CommandFileError(
                    f"{path}: line {number}: expected 'key: value' with key one of {', '.join(KEYS)}"
                )
            meta[key] = value.strip().strip("\"'")
        body = "\n".join(lines[end + 1 :])
    body = body.strip()
    if not body:
        raise CommandFileError(f"{path}: the prompt is empty")
    return CustomCommand(
        name=name,
        body=body,
        path=path,
        description=meta.get("description", ""),
        model=meta.get("model") or None,
        agent=meta.get("agent") or None,
    )


def load_commands(dirs: Iterable[Path], reserved: Iterable[str] = ()) -> tuple[dict[str, CustomCommand], list[str]]:
    """Blocking: every ``*.md`` in ``dirs`` (a later folder wins a clash), and one error per bad file."""
    taken = set(reserved)
    commands: dict[str, CustomCommand] = {}
    errors: list[str] = []
    for folder in dirs:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            try:
                command = parse_file(path, path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as error:
                errors.append(f"{path}: cannot read it: {error}")
                continue
            except CommandFileError as error:
                errors.append(str(error))
                continue
            if command.name in taken:
                errors.append(f"{path}: /{command.name} is a built-in command; rename the file")
                continue
            commands[command.name] = command
    return commands, errors


def command_dirs(config_dir: Path, project_root: Path) -> list[Path]:
    """Lowest precedence first."""
    return [config_dir / "commands", project_root / ".agent-tui" / "commands"]


async def watch_commands(dirs: list[Path], reload: Callable[[], object], stop: asyncio.Event) -> None:
    """Call ``reload`` when a ``*.md`` in an existing folder of ``dirs`` changes, until ``stop``."""
    from agent_tui.tui.theme_watch import import_watchfiles

    existing = [str(d) for d in dirs if d.is_dir()]
    if not existing:
        return
    watchfiles = await asyncio.to_thread(import_watchfiles)
    async for changes in watchfiles.awatch(*existing, stop_event=stop, debounce=150, step=50, recursive=False):
        if any(path.endswith(".md") for _, path in changes):
            reload()
