"""Control sequences never survive ``inert``; plain text (newlines, tabs, any script) is kept whole."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.vocab.terminal_text import inert, inert_json

ESC = "\x1b"
ATTACKS = {
    "title (OSC 0, BEL)": f"{ESC}]0;PWNED\x07",
    "title (OSC 2, ST)": f"{ESC}]2;PWNED{ESC}\\",
    "clipboard (OSC 52)": f"{ESC}]52;c;cm0gLXJmIH4K\x07",
    "hyperlink (OSC 8)": f"{ESC}]8;;https://evil.example{ESC}\\click{ESC}]8;;{ESC}\\",
    "clear screen": f"{ESC}[2J{ESC}[H",
    "cursor moves": f"{ESC}[10A{ESC}[5;5H{ESC}[?25l",
    "DCS": f"{ESC}P1$qm{ESC}\\",
    "APC": f"{ESC}_Gf=100;AAAA{ESC}\\",
    "PM": f"{ESC}^private{ESC}\\",
    "reset": f"{ESC}c",
    "charset": f"{ESC}(0",
    "8-bit CSI": "\x9b2J",
    "8-bit OSC": "\x9d0;PWNED\x9c",
    "BEL, backspace, CR, VT, FF, DEL": "\x07\x08\r\x0b\x0c\x7f",
    "bidi override and isolate": "\u202egnp.exe\u2066x\u2069\u202c",
}
BIDI = {chr(c) for c in range(0x202A, 0x202F)} | {chr(c) for c in range(0x2066, 0x206A)}
CONTROLS = {chr(c) for c in range(0x20) if chr(c) not in "\n\t"} | {chr(c) for c in range(0x7F, 0xA0)} | BIDI


def assert_inert(text: str) -> None:
    assert not CONTROLS & set(text), repr(text)


def test_each_attack_is_stripped_and_the_text_around_it_kept() -> None:
    for name, attack in ATTACKS.items():
        cleaned = inert(f"before {attack} after\n\tnext")
        assert_inert(cleaned)
        assert cleaned.startswith("before ") and cleaned.endswith(" after\n\tnext"), (name, cleaned)
        assert "PWNED" not in cleaned or name.startswith("8-bit"), (name, cleaned)  # 8-bit: introducer only


def test_bidi_controls_go_and_right_to_left_text_stays() -> None:
    assert inert("invoice\u202egnp.exe") == "invoicegnp.exe"
    assert inert("\u05e9\u05dc\u05d5\u05dd \u200fabc") == "\u05e9\u05dc\u05d5\u05dd \u200fabc"  # Hebrew and RLM kept


def test_a_lone_esc_goes_and_takes_only_what_a_terminal_would() -> None:
    assert inert(f"a{ESC}") == "a"
    assert inert(f"a{ESC}\nb") == "a\nb"
    assert inert(f"a{ESC}{ESC}b") == "a"  # ESC b is itself an escape (as a terminal reads it)


def test_an_unterminated_string_swallows_nothing() -> None:
    assert inert(f"a{ESC}]0;title never ends\nmore") == "a0;title never ends\nmore"


def test_only_sgr_survives_keep_sgr() -> None:
    red = f"{ESC}[1;31mred{ESC}[0m"
    assert inert(red) == "red"
    assert inert(red + ATTACKS["title (OSC 0, BEL)"] + ATTACKS["clear screen"], keep_sgr=True) == red
    assert inert(f"{ESC}[38:2:1:2:3mx{ESC}[m", keep_sgr=True) == f"{ESC}[38:2:1:2:3mx{ESC}[m"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="".join(CONTROLS))))
def test_text_without_controls_is_unchanged(text: str) -> None:
    assert inert(text) == text
    assert inert(text, keep_sgr=True) == text


@given(st.lists(st.one_of(st.text(), st.sampled_from(list(ATTACKS.values())))).map("".join))
def test_no_control_survives_any_mix(text: str) -> None:
    assert_inert(inert(text))
    kept = inert(text, keep_sgr=True)
    assert_inert(re.sub(r"\x1b\[[0-9;:]*m", "", kept))


@given(st.text())
def test_inert_json_is_the_same_value_with_no_raw_control(text: str) -> None:
    line = inert_json(json.dumps({"text": text}, ensure_ascii=False))
    assert json.loads(line) == {"text": text}
    assert_inert(line)
