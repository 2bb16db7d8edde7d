"""The help screen's rows come from bindings and the command registry, not from a table of their own."""

from __future__ import annotations

from textual.binding import Binding

from agent_tui.tui.screens.help import command_rows, key_label, key_rows


def test_keys_read_as_they_are_written_on_a_keyboard() -> None:
    assert [key_label(k) for k in ("ctrl+r", "escape", "shift+enter,ctrl+j", "pageup", "alt+up", "f1", "y")] == [
        "Ctrl+R",
        "Esc",
        "Shift+Enter, Ctrl+J",
        "PageUp",
        "Alt+Up",
        "F1",
        "y",
    ]


def test_rows_show_tooltips_else_descriptions_and_skip_silent_bindings() -> None:
    bindings = [
        Binding("f1", "help", "help", tooltip="this help"),
        Binding("ctrl+n", "new_session", "new"),
        Binding("up", "history(-1)", show=False),
        ("ctrl+x", "cut", "cut"),
    ]
    assert key_rows(bindings) == [("F1", "this help"), ("Ctrl+N", "new"), ("Ctrl+X", "cut")]
    rows = dict(command_rows(bindings))
    assert rows["/help"] == "keys and commands (F1)" and rows["/new"] == "start a new session here (Ctrl+N)"
    assert rows["/compact"] == "summarise older history to free context"  # no key runs it
