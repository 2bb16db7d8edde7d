"""A text file as lines plus the line ending of each, so an edit keeps every byte it was not asked to change.

A line ends only at ``\\n`` (``\\r\\n`` is kept as one ending). Form feed,
vertical tab, ``\\x1c``-``\\x1e``, NEL, U+2028, U+2029 and a lone ``\\r`` are
ordinary text inside a line: ``str.splitlines()`` would break there and write
the file back with ``\\n`` in their place.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.tools.apply_patch.matcher import seek
from agent_tui.tools.apply_patch.parser import Chunk

BOM = "\ufeff"


class ApplyError(ValueError):
    """An operation cannot be applied to the file as it is."""


@dataclass
class TextFile:
    lines: list[str]
    eols: list[str]
    """Per line: ``"\\n"``, ``"\\r\\n"``, or ``""`` for a last line without one."""
    bom: bool = False

    @property
    def eol(self) -> str:
        """The dominant line ending, used for new lines."""
        crlf = sum(1 for e in self.eols if e == "\r\n")
        lf = sum(1 for e in self.eols if e == "\n")
        return "\r\n" if crlf > lf else "\n"

    @classmethod
    def parse(cls, data: bytes, name: str) -> TextFile:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ApplyError(f"{name} is not UTF-8 text") from None
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        pieces = text.split("\n")
        tail = pieces.pop()  # what follows the last "\n": "" when the file ends with one
        lines = [p[:-1] if p.endswith("\r") else p for p in pieces]
        eols = ["\r\n" if p.endswith("\r") else "\n" for p in pieces]
        if tail:
            lines.append(tail)
            eols.append("")
        return cls(lines, eols, bom)

    def dump(self) -> bytes:
        body = "".join(line + eol for line, eol in zip(self.lines, self.eols, strict=True))
        return ((BOM if self.bom else "") + body).encode("utf-8")


def _without_bom(lines: list[str]) -> tuple[list[str], bool]:
    """The chunk's lines with a leading byte-order mark dropped (the file's is kept apart), and whether it had one."""
    if lines and lines[0].startswith(BOM):
        return [lines[0][1:], *lines[1:]], True
    return lines, False


def apply_chunks(file: TextFile, chunks: list[Chunk], name: str) -> TextFile:
    """The file with every chunk applied.

    Lines outside the chunks keep their bytes, the last line's missing final
    newline included. Inside a chunk, context lines keep the file's text and
    ending (they may have matched fuzzily); new lines take the dominant ending.
    """
    lines = file.lines
    eol = file.eol
    # (start, old line count, new lines, their line endings)
    replacements: list[tuple[int, int, list[str], list[str]]] = []
    index = 0
    for chunk in chunks:
        if chunk.context is not None:
            context = chunk.context.removeprefix(BOM)
            found = seek(lines, [context], index)
            if found is None:
                raise ApplyError(f"Failed to find context {chunk.context!r} in {name}")
            index = found + 1
        old, had_bom = _without_bom(chunk.old)
        new, kept = chunk.new, chunk.kept
        if had_bom or file.bom:
            new, _ = _without_bom(new)
        if not old:
            at = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
            replacements.append((at, 0, new, [eol] * len(new)))
            continue
        anchor = _Anchor(lines, chunk.end_of_file)
        found = anchor.seek(old, index)
        if found is None and old[-1] == "":
            old = old[:-1]
            if new and new[-1] == "":
                new, kept = new[:-1], kept[:-1]
            found = anchor.seek(old, index)
        if found is None:
            raise ApplyError(anchor.failure(chunk.old, name))
        texts = [text if j is None or j >= len(old) else lines[found + j] for text, j in zip(new, kept, strict=True)]
        eols = [eol if j is None or j >= len(old) else file.eols[found + j] for j in kept]
        replacements.append((found, len(old), texts, eols))
        index = found + len(old)
    return _splice(file, replacements, name)


class _Anchor:
    """Finds a chunk's lines; one marked ``*** End of File`` only at the end, never silently elsewhere."""

    def __init__(self, lines: list[str], end_of_file: bool) -> None:
        self.lines = lines
        self.end_of_file = end_of_file
        self.elsewhere: int | None = None

    def seek(self, old: list[str], start: int) -> int | None:
        found = seek(self.lines, old, start, self.end_of_file)
        if not self.end_of_file or found is None or found + len(old) == len(self.lines):
            return found
        self.elsewhere = found if self.elsewhere is None else self.elsewhere
        return None

    def failure(self, old: list[str], name: str) -> str:
        if self.elsewhere is not None:
            return (
                f"Failed to apply a chunk marked '*** End of File' to {name}: its lines are at line "
                f"{self.elsewhere + 1}, not at the end of the file (line {len(self.lines)}). "
                "Give the file's last lines, or drop the marker."
            )
        shown = "\n".join(old)
        return f"Failed to find the expected lines in {name}:\n{shown}"


def _splice(file: TextFile, replacements: list[tuple[int, int, list[str], list[str]]], name: str) -> TextFile:
    replacements.sort(key=lambda r: r[0])
    out_lines: list[str] = []
    out_eols: list[str] = []
    cursor = 0
    for start, count, new, new_eols in replacements:
        if start < cursor:
            raise ApplyError(f"Two changes in {name} overlap at line {start + 1}")
        out_lines += file.lines[cursor:start]
        out_eols += file.eols[cursor:start]
        out_lines += new
        out_eols += new_eols
        cursor = start + count
    out_lines += file.lines[cursor:]
    out_eols += file.eols[cursor:]
    # Only the last line may lack an ending: one that had none and now has lines after it gets one.
    out_eols[:-1] = [e or file.eol for e in out_eols[:-1]]
    return TextFile(out_lines, out_eols, file.bom)
