"""A text file as lines plus the line ending of each, so edits keep CRLF/LF as they were."""

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
    bom: bool = False

    @property
    def eol(self) -> str:
        """The dominant line ending, used for new lines."""
        crlf = sum(1 for e in self.eols if e == "\r\n")
        lf = sum(1 for e in self.eols if e == "\n")
        return "\r\n" if crlf > lf else "\n"

    @classmethod
    def parse(cls, data: bytes, name: str) -> "TextFile":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ApplyError(f"{name} is not UTF-8 text") from None
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        lines, eols = [], []
        for raw in text.splitlines(keepends=True):
            if raw.endswith("\r\n"):
                lines.append(raw[:-2]), eols.append("\r\n")
            elif raw.endswith("\n"):
                lines.append(raw[:-1]), eols.append("\n")
            else:
                lines.append(raw), eols.append("")
        return cls(lines, eols, bom)

    def dump(self) -> bytes:
        body = "".join(line + eol for line, eol in zip(self.lines, self.eols))
        return ((BOM if self.bom else "") + body).encode("utf-8")



def apply_chunks(file: TextFile, chunks: list[Chunk], name: str) -> TextFile:
    """The file with every chunk applied; every line ends with a line ending afterwards."""
    lines = file.lines
    eol = file.eol
    # (start, old line count, new lines, their line endings)
    replacements: list[tuple[int, int, list[str], list[str]]] = []
    index = 0
    for chunk in chunks:
        if chunk.context is not None:
            found = seek(lines, [chunk.context], index)
            if found is None:
                raise ApplyError(f"Failed to find context {chunk.context!r} in {name}")
            index = found + 1
        if not chunk.old:
            at = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
            replacements.append((at, 0, chunk.new, [eol] * len(chunk.new)))
            continue
        old, new, kept = chunk.old, chunk.new, chunk.kept
        found = seek(lines, old, index, chunk.end_of_file)
        if found is None and old[-1] == "":
            old = old[:-1]
            if new and new[-1] == "":
                new, kept = new[:-1], kept[:-1]
            found = seek(lines, old, index, chunk.end_of_file)
        if found is None:
            shown = "\n".join(chunk.old)
            raise ApplyError(f"Failed to find the expected lines in {name}:\n{shown}")
        # Context lines keep the file's own text and line ending (they may have matched fuzzily).
        texts = [text if j is None or j >= len(old) else lines[found + j] for text, j in zip(new, kept)]
        eols = [eol if j is None or j >= len(old) else file.eols[found + j] for j in kept]
        replacements.append((found, len(old), texts, eols))
        index = found + len(old)
    replacements.sort(key=lambda r: r[0])
    out_lines: list[str] = []
    out_eols: list[str] = []
    cursor = 0
    for start, count, new, new_eols in replacements:
        if start < cursor:
            raise ApplyError(f"Two changes in {name} overlap at line {start + 1}")
        out_lines += lines[cursor:start]
        out_eols += file.eols[cursor:start]
        out_lines += new
        out_eols += new_eols
        cursor = start + count
    out_lines += lines[cursor:]
    out_eols += file.eols[cursor:]
    out_eols = [e or eol for e in out_eols]
    return TextFile(out_lines, out_eols, file.bom)
