"""Text from a model, a tool or a file made harmless for a terminal: no control sequences.

A model's answer, a file the ``read`` tool returned or a command's output can
hold escape sequences. Written to a terminal as they are, they retitle the
window (``ESC ] 0 ;``), write the clipboard (OSC 52), plant hyperlinks
(OSC 8), clear the screen or move the cursor over what is shown. Both the TUI
and ``agent-tui run`` pass such text through :func:`inert` first.

Stripped: 7-bit escape sequences (CSI, OSC/DCS/SOS/PM/APC strings up to their
terminator, two-character escapes), a lone ESC, every C0 control except
``\\n`` and ``\\t`` (BEL, backspace, ``\\r``, …), DEL, every C1 control, and
the Unicode bidi embeddings, overrides and isolates (U+202A–U+202E,
U+2066–U+2069): on a terminal that lays out bidi text they reorder what
follows, so the screen shows other text than was written ("Trojan Source").
An 8-bit introducer (``\\x9b``, ``\\x9d``) is removed on its own and what
followed it stays as plain text; so does the body of an unterminated string,
so nothing is swallowed. With ``keep_sgr`` the colour and style sequences
(``ESC [ … m``) stay, for a caller that renders them itself (Rich's
``Text.from_ansi``). Stdlib only: no pydantic, no Textual.
"""

from __future__ import annotations

import re

_SEQUENCE = re.compile(
    r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"  # CSI: parameters, intermediates, final byte
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"  # OSC, DCS, SOS, PM, APC up to BEL or ST
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"  # any other escape, an unterminated introducer, a lone ESC
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"  # C0 but \t and \n, DEL, C1, bidi controls
)
_ANY_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Every sequence starts with one of these: text without any is returned as it is, quickly."""
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_JSON_UNESCAPED_CONTROLS = re.compile(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _drop(match: re.Match[str]) -> str:
    return ""


def _drop_all_but_sgr(match: re.Match[str]) -> str:
    sequence = match.group()
    return sequence if _SGR.fullmatch(sequence) else ""


def inert(text: str, *, keep_sgr: bool = False) -> str:
    """``text`` without terminal control sequences (SGR colours kept only with ``keep_sgr``)."""
    if _ANY_CONTROL.search(text) is None:
        return text
    return _SEQUENCE.sub(_drop_all_but_sgr if keep_sgr else _drop, text)


def inert_json(line: str) -> str:
    """A JSON text with DEL, C1 and bidi controls written as ``\\u`` escapes: the same value, safe to print.

    ``json.dumps`` escapes C0 controls (ESC included) but not these; they can
    only occur inside JSON strings, where an escape means the same character.
    """
    return _JSON_UNESCAPED_CONTROLS.sub(lambda match: f"\\u{ord(match.group()):04x}", line)
