"""apply_patch keeps every byte it was not asked to change.

A line ends only at ``\\n``; every other character ``str.splitlines()`` breaks
at is text. Lines outside the changed chunks, their endings, a missing final
newline and a byte-order mark all survive an update. The property drives the
real applier (parse, resolve, verify, write) on files in a temporary directory.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.tools.apply_patch.applier import apply, resolve, verify
from agent_tui.tools.apply_patch.parser import parse_patch
from agent_tui.tools.apply_patch.textfile import BOM, TextFile

BREAKS = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r"]
"""Everything ``str.splitlines()`` breaks at besides ``\\n`` (a lone ``\\r`` included)."""

_text = st.text(st.sampled_from([*BREAKS, "a", "Z", " ", "\t", "-", "+", "*", "@", "é", "—", "“"]), max_size=6)
_free = _text.map(lambda s: s.rstrip("\r"))
"""Text that does not end in ``\\r`` (which, before ``\\n``, would make the ending ``\\r\\n``)."""


@dataclass
class Line:
    text: str
    eol: str
    action: str
    """"keep", "replace" or "delete"."""
    new: list[str]
    context: bool
    """Give the line before as context (when that line is kept)."""


@st.composite
def edits(draw: st.DrawFn) -> tuple[bool, list[Line], bool, bool]:
    count = draw(st.integers(1, 10))
    lines = []
    for i in range(count):
        text = draw(_text) + f"#{i}#" + draw(_free)
        eol = draw(st.sampled_from(["\n", "\r\n"]))
        action = draw(st.sampled_from(["keep", "keep", "replace", "delete"]))
        new = draw(st.lists(_free, min_size=1, max_size=2))
        lines.append(Line(text, eol, action, new, draw(st.booleans())))
    if draw(st.booleans()):
        lines[-1].eol = ""
        lines[-1].text += draw(st.sampled_from(["", "\r"]))
    if all(line.action == "keep" for line in lines):
        lines[draw(st.integers(0, count - 1))].action = "replace"
    return draw(st.booleans()), lines, draw(st.booleans()), draw(st.booleans())


def _file_bytes(bom: bool, lines: list[Line]) -> bytes:
    return ((BOM if bom else "") + "".join(line.text + line.eol for line in lines)).encode()


def _patch(lines: list[Line], bom_in_patch: bool, end_of_file: bool) -> str:
    body = ["*** Update File: f.txt"]
    for i, line in enumerate(lines):
        if line.action == "keep":
            continue
        chunk = ["@@"]
        if line.context and i > 0 and lines[i - 1].action == "keep":
            chunk.append(" " + lines[i - 1].text)
        chunk.append("-" + (BOM if bom_in_patch and i == 0 else "") + line.text)
        if line.action == "replace":
            chunk += ["+" + new for new in line.new]
        if end_of_file and i == len(lines) - 1 and line.action == "replace":
            chunk.append("*** End of File")
        body += chunk
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


def _expected(bom: bool, lines: list[Line]) -> bytes:
    crlf = sum(1 for line in lines if line.eol == "\r\n")
    lf = sum(1 for line in lines if line.eol == "\n")
    eol = "\r\n" if crlf > lf else "\n"
    out = []
    for line in lines:
        if line.action == "keep":
            out.append(line.text + line.eol)
        elif line.action == "replace":
            out += [new + eol for new in line.new]
    return ((BOM if bom else "") + "".join(out)).encode()


def _apply_in(directory: Path, patch: str) -> str | None:
    applied, failure = apply(verify(resolve(directory, parse_patch(patch))))
    return failure


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits())
def test_every_untouched_byte_survives_an_update(case: tuple[bool, list[Line], bool, bool]) -> None:
    bom, lines, bom_in_patch, end_of_file = case
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        (directory / "f.txt").write_bytes(_file_bytes(bom, lines))
        assert _apply_in(directory, _patch(lines, bom_in_patch, end_of_file)) is None
        assert (directory / "f.txt").read_bytes() == _expected(bom, lines)


@given(st.lists(st.tuples(_text, st.sampled_from(["\n", "\r\n"])), max_size=8), st.booleans(), st.booleans())
def test_a_file_reads_back_as_the_same_bytes(lines: list[tuple[str, str]], bom: bool, final_newline: bool) -> None:
    text = "".join(t + e for t, e in lines)
    if not final_newline and text.endswith("\n"):
        text = text[:-1]
    data = ((BOM if bom else "") + text).encode()
    assert TextFile.parse(data, "f").dump() == data


def test_every_other_break_is_text_inside_a_line(tmp_path: Path) -> None:
    """Python's splitlines() breaks at each of these; a line ends only at \\n."""
    weird = "".join(BREAKS)
    data = f"keep{weird}tail\nold\nlast{weird}".encode()
    (tmp_path / "f.txt").write_bytes(data)
    assert _apply_in(tmp_path, "*** Begin Patch\n*** Update File: f.txt\n-old\n+new\n*** End Patch") is None
    assert (tmp_path / "f.txt").read_bytes() == f"keep{weird}tail\nnew\nlast{weird}".encode()
    assert TextFile.parse(data, "f").lines == [f"keep{weird}tail", "old", f"last{weird}"]


def test_a_break_character_in_the_patch_matches_as_text(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes("a\x0cb\nc\u2028d\n".encode())
    patch = "*** Begin Patch\n*** Update File: f.txt\n a\x0cb\n-c\u2028d\n+c\u2029d\n*** End Patch"
    assert _apply_in(tmp_path, patch) is None
    assert (tmp_path / "f.txt").read_bytes() == "a\x0cb\nc\u2029d\n".encode()


def test_a_missing_final_newline_outside_the_chunks_stays_missing(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"one\r\ntwo\r\nthree")
    assert _apply_in(tmp_path, "*** Begin Patch\n*** Update File: f.txt\n-one\n+ONE\n*** End Patch") is None
    assert (tmp_path / "f.txt").read_bytes() == b"ONE\r\ntwo\r\nthree"


def test_a_bom_is_kept_and_a_chunk_matches_with_or_without_it(tmp_path: Path) -> None:
    (tmp_path / "with.txt").write_bytes(f"{BOM}first\nsecond\n".encode())
    (tmp_path / "without.txt").write_bytes(f"{BOM}first\nsecond\n".encode())
    patch = (
        "*** Begin Patch\n"
        f"*** Update File: with.txt\n-{BOM}first\n+{BOM}FIRST\n second\n"
        "*** Update File: without.txt\n-first\n+FIRST\n second\n"
        "*** End Patch"
    )
    assert _apply_in(tmp_path, patch) is None
    assert (tmp_path / "with.txt").read_bytes() == f"{BOM}FIRST\nsecond\n".encode()
    assert (tmp_path / "without.txt").read_bytes() == f"{BOM}FIRST\nsecond\n".encode()


def test_end_of_file_anchors_the_chunk_at_the_end(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"a\nb\na\n")
    assert (
        _apply_in(tmp_path, "*** Begin Patch\n*** Update File: f.txt\n-a\n+A\n*** End of File\n*** End Patch") is None
    )
    assert (tmp_path / "f.txt").read_bytes() == b"a\nb\nA\n"


def test_end_of_file_never_silently_takes_a_match_elsewhere(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"a\nb\nc\n")
    failure = _apply_in(tmp_path, "*** Begin Patch\n*** Update File: f.txt\n-a\n+A\n*** End of File\n*** End Patch")
    assert failure is not None
    assert "marked '*** End of File'" in failure and "at line 1, not at the end of the file (line 3)" in failure
    assert (tmp_path / "f.txt").read_bytes() == b"a\nb\nc\n"
