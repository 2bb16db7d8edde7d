"""Keys before output: ``waiting`` from a key's delivery until the frame after it, never too long."""

from __future__ import annotations

from agent_tui.tui.keys_first import MAX_WAIT_S, KeysFirst
from agent_tui.vocab.clock import ManualClock
from tests.fakes.pumps import FramePump as Pump


def test_output_waits_until_every_delivered_key_is_painted() -> None:
    keys, prompt = KeysFirst(ManualClock()), Pump()
    assert not keys.waiting
    keys.delivered(prompt)
    keys.delivered(prompt)
    assert keys.waiting
    prompt.after_frame.pop(0)()
    assert keys.waiting  # one of two on screen
    prompt.paint()
    assert not keys.waiting


def test_a_key_whose_frame_never_comes_holds_output_back_no_longer_than_the_limit() -> None:
    clock = ManualClock()
    keys = KeysFirst(clock)
    keys.delivered(Pump())
    clock.advance(MAX_WAIT_S - 0.001)
    assert keys.waiting
    clock.advance(0.001)
    assert not keys.waiting
    keys.delivered(Pump())  # a later key counts again, from its own delivery
    assert keys.waiting


def test_a_key_for_a_closing_widget_holds_nothing_back() -> None:
    keys = KeysFirst(ManualClock())
    keys.delivered(Pump(open=False))
    assert not keys.waiting
