"""The ``read`` tool: a page of a text file, an image, or a directory listing."""

from __future__ import annotations

import asyncio
import base64
import os
import stat

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.tools.descriptions import tool_description
from agent_tui.tools.errors import ToolError
from agent_tui.tools.image_limits import ImageRefused, check_size, checked_mime
from agent_tui.tools.paths import Resolved, resolve_inside
from agent_tui.tools.references import resolve_reference
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.sniff import SNIFF_BYTES, human_size, sniff
from agent_tui.tools.text_pages import MAX_LINES, MAX_PAGE_BYTES, file_key, read_page
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.tool_output import ToolOutput

DESCRIPTION = tool_description("agent_tui.tools", "read.md")


class ReadInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        description="File or directory path, relative to the working directory, or NAME:path in a reference folder."
    )
    offset: int | None = Field(default=None, ge=1, description="1-based line (or entry) to start from.")
    limit: int | None = Field(default=None, ge=1, description="How many lines (or entries) to return; at most 2000.")


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def read_resolved(params: ReadInput, vision: bool, resolved: Resolved) -> ToolResult:
    """Blocking: what ``read`` returns for an already resolved path (prompt mentions use it too)."""
    try:
        st = os.stat(resolved.path)
    except PermissionError:
        raise ToolError(f"Permission denied: cannot access {params.path!r}.") from None
    if stat.S_ISDIR(st.st_mode):
        return _list_dir(resolved, params)
    for check, what in _KINDS:
        if check(st.st_mode):
            raise ToolError(f"Cannot read {params.path!r}: it is {what}, not a regular file.")
    try:
        fd = os.open(resolved.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except PermissionError:
        raise ToolError(f"Permission denied: cannot read {params.path!r}.") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"Cannot read {params.path!r}: it is not a regular file.")
        head = os.pread(fd, SNIFF_BYTES, 0)
        kind = sniff(head, resolved.path.name)
        if kind.kind == "image":
            return _image(fd, st.st_size, resolved, kind.mime, vision)
        if kind.kind == "binary":
            raise ToolError(
                f"Cannot read {params.path!r}: it is a binary file ({kind.description}, {human_size(st.st_size)})."
            )
        return _text_page(fd, st, resolved, params)
    finally:
        os.close(fd)


def _image(fd: int, size: int, resolved: Resolved, mime: str, vision: bool) -> ToolResult:
    what = f"{mime}, {human_size(size)}"
    if not vision:
        raise ToolError(
            f"Cannot read {resolved.rel!r}: it is an image ({what}) and the current model cannot view images."
        )
    try:
        check_size(size)
        data = os.pread(fd, size, 0)
        mime = checked_mime(data)
    except ImageRefused as refused:
        raise ToolError(
            f"Cannot show the image {resolved.rel!r} ({mime}) to the model: {refused}. "
            "Make a smaller copy (e.g. `convert IN -resize 2000x2000 OUT`) and read that."
        ) from None
    image = {"path": resolved.rel, "mime": mime, "data": base64.b64encode(data).decode("ascii")}
    text = f"Image {resolved.rel} ({what}) is attached."
    return ToolResult(ToolOutput(text=text, images=[image], data={"path": resolved.rel, "kind": "image", "mime": mime}))


def _text_page(fd: int, st: os.stat_result, resolved: Resolved, params: ReadInput) -> ToolResult:
    offset = params.offset or 1
    limit = min(params.limit or MAX_LINES, MAX_LINES)
    page = read_page(fd, st.st_size, file_key(st), offset, limit)
    if isinstance(page, int):
        raise ToolError(f"offset {offset} is past the end of {resolved.rel!r}, which has {page} lines.")
    body = []
    for number, line in enumerate(page.lines, start=offset):
        marker = f" … [line truncated: {line.cut_bytes} more bytes]" if line.cut_bytes else ""
        body.append(f"{number:6}\t{line.text}{marker}")
    last = offset + len(page.lines) - 1
    if not page.lines:
        footer = "(empty file)"
    elif page.next_offset is None:
        footer = f"(End of file. Showed lines {offset}-{last}; the file has {last} line{'' if last == 1 else 's'}.)"
    else:
        why = " (50 KiB page limit reached)" if page.byte_capped else ""
        footer = f"(Showed lines {offset}-{last}{why}. More follows: read again with offset={page.next_offset}.)"
    text = "\n".join([*body, footer])
    data = {
        "path": resolved.rel,
        "kind": "text",
        "offset": offset,
        "lines": len(page.lines),
        "next_offset": page.next_offset,
        "size": st.st_size,
    }
    return ToolResult(ToolOutput(text=text, data=data))


def _list_dir(resolved: Resolved, params: ReadInput) -> ToolResult:
    try:
        with os.scandir(resolved.path) as it:
            entries = []
            for entry in it:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                entries.append((not is_dir, entry.name + ("/" if is_dir else "")))
    except PermissionError:
        raise ToolError(f"Permission denied: cannot list {params.path!r}.") from None
    entries.sort()
    offset = params.offset or 1
    limit = min(params.limit or MAX_LINES, MAX_LINES)
    if entries and offset > len(entries):
        raise ToolError(f"offset {offset} is past the end of {resolved.rel!r}, which has {len(entries)} entries.")
    shown: list[str] = []
    used = 0
    for _, name in entries[offset - 1 : offset - 1 + limit]:
        used += len(name.encode("utf-8", errors="replace")) + 1
        if shown and used > MAX_PAGE_BYTES:
            break
        shown.append(name)
    last = offset + len(shown) - 1
    next_offset = last + 1 if last < len(entries) else None
    if not entries:
        footer = "(empty directory)"
    elif next_offset is None:
        footer = f"(Entries {offset}-{last} of {len(entries)}.)"
    else:
        footer = f"(Entries {offset}-{last} of {len(entries)}. More follows: read again with offset={next_offset}.)"
    data = {
        "path": resolved.rel,
        "kind": "directory",
        "offset": offset,
        "entries": len(shown),
        "total": len(entries),
        "next_offset": next_offset,
    }
    return ToolResult(ToolOutput(text="\n".join([*shown, footer]), data=data))


def _resolve(scope: ToolScope, raw: str) -> Resolved:
    return resolve_reference(scope.references, raw) or resolve_inside(scope.location, raw)


async def run_read(scope: ToolScope, params: ReadInput) -> ToolResult:
    resolved = await asyncio.to_thread(_resolve, scope, params.path)
    await scope.ask("read", [resolved.rel], detail={"path": resolved.rel})
    return await asyncio.to_thread(read_resolved, params, scope.supports_vision, resolved)


READ = Tool(name="read", description=DESCRIPTION, input_model=ReadInput, run=run_read, action="read")
