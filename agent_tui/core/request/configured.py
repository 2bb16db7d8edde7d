"""Configured instruction sources: ``instructions = ["docs/rules.md", "docs/*.md", "https://…"]``.

One aggregate source (``core/configured``), after the discovered AGENTS.md files (reference 001:
"configured local/glob and remote URL instructions … with explicit precedence and removal
semantics"): entries in the order the config lists them, a glob's matches sorted. Its value is
the list of ``{"source", "text"}`` the model was told, so an update restates the whole set and
an empty set revokes it, as for AGENTS.md.

- A relative path or glob is taken from the project root; ``~`` is the user's home.
- A file that is missing (or a glob matching nothing) is simply not there: a removal, if it was.
- A file that cannot be read (not UTF-8, no permission) makes the whole source unavailable this
  time: the model keeps its last belief, never a false removal.
- A URL is fetched with a timeout. A good copy is kept in the data directory; when the server
  does not answer, that copy stands in, and without one the text the model last saw stays
  (``settle``). A URL that was never fetched is simply not there yet. A copy younger than
  ``instructions_refresh_s`` is used as it is: a turn of many steps does not wait on the
  network at each one.

Which entries a project's own config may list without trust (paths inside the project, no URL)
is ``settings.trust``'s business: by the time settings reach here they are allowed.
"""

from __future__ import annotations

import asyncio
import glob
import hashlib
import os
import time
from pathlib import Path
from typing import Any

from agent_tui.core.settings import paths

FETCH_TIMEOUT_S = 5.0
MAX_REMOTE_BYTES = 256 * 1024


class Unreadable(Exception):
    """A configured file exists but could not be read; ``str()`` says which and why."""


def is_url(entry: str) -> bool:
    return entry.startswith(("http://", "https://"))


def local_files(entry: str, project_root: Path) -> list[Path]:
    """The files a path or glob names, from the project root; sorted, each once."""
    expanded = os.path.expanduser(entry)
    pattern = expanded if os.path.isabs(expanded) else str(project_root / expanded)
    if glob.has_magic(pattern):
        return sorted(Path(match) for match in glob.glob(pattern, recursive=True) if Path(match).is_file())
    path = Path(pattern)
    return [path] if path.is_file() else []


def _read_local(entry: str, project_root: Path) -> list[dict[str, str | None]]:
    out: list[dict[str, str | None]] = []
    for path in local_files(entry, project_root):
        try:
            out.append({"source": str(path), "text": path.read_text(encoding="utf-8")})
        except UnicodeDecodeError as error:
            raise Unreadable(f"{path} is not UTF-8 text ({error.reason} at byte {error.start})") from None
        except OSError as error:
            raise Unreadable(f"{path} could not be read ({error.strerror or type(error).__name__})") from None
    return out


def _cache_file(url: str) -> Path:
    return paths.data_dir() / "instructions" / (hashlib.sha256(url.encode()).hexdigest()[:32] + ".md")


def _fresh_copy(cache: Path, fresh_for_s: float) -> str | None:
    """Blocking: the kept copy if it was fetched less than ``fresh_for_s`` ago."""
    try:
        if time.time() - cache.stat().st_mtime < fresh_for_s:
            return cache.read_text(encoding="utf-8")
    except OSError:
        pass
    return None


async def _fetch(url: str, timeout_s: float, fresh_for_s: float = 0) -> str | None:
    """The text at ``url``, or the last good copy, or None (the model keeps what it was told)."""
    cache = _cache_file(url)
    if fresh_for_s > 0:
        fresh = await asyncio.to_thread(_fresh_copy, cache, fresh_for_s)
        if fresh is not None:
            return fresh
    import aiohttp

    try:
        timeout = aiohttp.ClientTimeout(total=timeout_s)
        async with aiohttp.ClientSession(timeout=timeout) as client, client.get(url) as response:
            response.raise_for_status()
            body = await response.content.read(MAX_REMOTE_BYTES + 1)
        if len(body) > MAX_REMOTE_BYTES:
            raise ValueError(f"more than {MAX_REMOTE_BYTES} bytes")
        text = body.decode("utf-8")
    except (aiohttp.ClientError, TimeoutError, ValueError, UnicodeDecodeError):
        try:
            return await asyncio.to_thread(cache.read_text, encoding="utf-8")
        except OSError:
            return None
    await asyncio.to_thread(_keep, cache, text)
    return text


def _keep(cache: Path, text: str) -> None:
    """Atomically, readable by the user only (a team's rules may not be for everyone on the machine)."""
    cache.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = cache.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    temporary.replace(cache)


async def observe_configured(
    entries: list[str], project_root: Path, timeout_s: float = FETCH_TIMEOUT_S, fresh_for_s: float = 0
) -> list[dict[str, str | None]]:
    """Every configured entry's files and texts, in order; ``text`` None: a URL not reachable now.
    Raises :class:`Unreadable`."""

    async def one(entry: str) -> list[dict[str, str | None]]:
        if is_url(entry):
            return [{"source": entry, "text": await _fetch(entry, timeout_s, fresh_for_s)}]
        return await asyncio.to_thread(_read_local, entry, project_root)

    found = await asyncio.gather(*(one(entry) for entry in entries))
    seen: set[str] = set()
    out: list[dict[str, str | None]] = []
    for item in (item for items in found for item in items):
        if item["source"] not in seen:
            seen.add(str(item["source"]))
            out.append(item)
    return out


def settle_configured(observed: list[dict[str, Any]], previous: Any) -> list[dict[str, str]]:
    """A URL not reachable now keeps the text the model last saw from it; one never seen is left out."""
    before = {item["source"]: item["text"] for item in previous} if isinstance(previous, list) else {}
    settled = [
        {"source": item["source"], "text": item["text"] if item["text"] is not None else before.get(item["source"])}
        for item in observed
    ]
    return [item for item in settled if item["text"]]


def configured_text(items: list[dict[str, str]]) -> str:
    return "\n\n".join(f"Instructions from {item['source']}:\n\n{item['text'].strip()}" for item in items)
