"""Parsing the ``*** Begin Patch`` format into file operations.

Lenient where models slip harmlessly: a heredoc wrapper
(``<<'EOF'`` … ``EOF``) or a Markdown code fence, whitespace around markers and headers, CRLF patch
text, a first chunk without ``@@``. Strict everywhere else, with errors that
name the line. Headers count only where the grammar puts them: inside an
update, a line starting with ``' '``, ``-`` or ``+`` is content, so a file
that contains ``*** End Patch`` or ``*** Delete File: x`` can be edited
without the patch deleting, adding or moving anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
EOF_MARK = "*** End of File"
_HEREDOC = re.compile(r"""^\s*(?:apply_patch\s+)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1\s*$""")


class PatchError(ValueError):
    """The patch text is not a valid patch; the message says where and why."""


@dataclass
class Chunk:
    context: str | None
    """Text after ``@@ `` (a line to find first), or None."""
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    end_of_file: bool = False
    kept: list[int | None] = field(default_factory=list)
    """Per ``new`` line: index of the same context line in ``old``, or None for an added line."""
    added: int = 0
    removed: int = 0


@dataclass
class AddFile:
    path: str
    contents: str


@dataclass
class DeleteFile:
    path: str


@dataclass
class UpdateFile:
    path: str
    move_to: str | None
    chunks: list[Chunk]


Operation = AddFile | DeleteFile | UpdateFile


def _unwrap(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while lines and not lines[0].strip():
        lines = lines[1:]
    if len(lines) >= 2:
        match = _HEREDOC.match(lines[0])
        if match and lines[-1].strip() == match.group(2):
            return _unwrap(lines[1:-1])
        if lines[0].strip().startswith("```") and lines[-1].strip() == "```":
            return _unwrap(lines[1:-1])
    return lines


def _is(stripped: str, marker: str) -> bool:
    return stripped.startswith(marker) or stripped == marker.rstrip()


_CONTENT = (" ", "-", "+")
"""Inside an update, a line starting with one of these is content, whatever follows: never a header."""


def _header(line: str) -> str | None:
    if line.startswith(_CONTENT):
        return None
    stripped = line.strip()
    for marker in (ADD, DELETE, UPDATE, MOVE):
        if _is(stripped, marker):
            return marker
    if stripped in (END, EOF_MARK):
        return stripped
    return None


def parse_patch(text: str) -> list[Operation]:
    lines = _unwrap([line.removesuffix("\r") for line in text.split("\n")])
    if not lines or lines[0].strip() != BEGIN:
        raise PatchError(f"The first line of the patch must be '{BEGIN}'.")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise PatchError(f"The last line of the patch must be '{END}'.")
    body = lines[1:-1]
    operations: list[Operation] = []
    i = 0
    while i < len(body):
        line = body[i]
        stripped = line.strip()
        number = i + 2
        if _is(stripped, ADD):
            path = _path(stripped[len(ADD) :], number)
            i += 1
            content: list[str] = []
            while i < len(body) and body[i].startswith("+"):
                content.append(body[i][1:])
                i += 1
            operations.append(AddFile(path, "".join(f"{c}\n" for c in content)))
        elif _is(stripped, DELETE):
            operations.append(DeleteFile(_path(stripped[len(DELETE) :], number)))
            i += 1
        elif _is(stripped, UPDATE):
            path = _path(stripped[len(UPDATE) :], number)
            i += 1
            move_to = None
            if i < len(body) and _header(body[i]) == MOVE:
                move_to = _path(body[i].strip()[len(MOVE) :], i + 2)
                i += 1
            chunks, i = _chunks(body, i, path)
            if not chunks:
                raise PatchError(
                    f"Update File hunk for {path!r} is empty (line {number}): it needs at least one change."
                )
            operations.append(UpdateFile(path, move_to, chunks))
        elif not stripped:
            i += 1
        else:
            raise PatchError(
                f"Line {number}: {stripped!r} is not a valid hunk header. Valid hunk headers: "
                f"'{ADD}{{path}}', '{DELETE}{{path}}', '{UPDATE}{{path}}'."
            )
    if not operations:
        raise PatchError("The patch has no file operations; nothing was changed.")
    return operations


def _path(raw: str, number: int) -> str:
    path = raw.strip()
    if not path:
        raise PatchError(f"Line {number}: the file path is missing.")
    return path


def _chunks(body: list[str], i: int, path: str) -> tuple[list[Chunk], int]:
    chunks: list[Chunk] = []
    current: Chunk | None = None
    while i < len(body):
        line = body[i]
        marker = _header(line)
        if marker in (ADD, DELETE, UPDATE, END):
            break
        if marker == EOF_MARK:
            if current is None or not (current.old or current.new):
                raise PatchError(f"Line {i + 2}: '{EOF_MARK}' must follow the lines of a change in {path!r}.")
            current.end_of_file = True
            current = None
            i += 1
            continue
        if line.strip().startswith("@@") and (line.startswith("@@") or line[:1] not in " +-"):
            rest = line.strip()[2:]
            current = Chunk(context=rest.strip() or None)
            chunks.append(current)
            i += 1
            continue
        if current is None:
            if line[:1] not in (" ", "+", "-", ""):
                raise PatchError(f"Line {i + 2}: expected '@@' or a change line in {path!r}, got {line!r}.")
            current = Chunk(context=None)
            chunks.append(current)
        match line[:1]:
            case " " | "":
                current.kept.append(len(current.old))
                current.old.append(line[1:])
                current.new.append(line[1:])
            case "-":
                current.old.append(line[1:])
                current.removed += 1
            case "+":
                current.kept.append(None)
                current.new.append(line[1:])
                current.added += 1
            case _:
                raise PatchError(
                    f"Line {i + 2}: {line!r} in {path!r} is not a change line; "
                    "lines must start with ' ' (context), '-' (remove) or '+' (add)."
                )
        i += 1
    return [c for c in chunks if c.old or c.new or c.context], i
