"""The postponed full collection: due, quiet and idle, or not at all."""

from __future__ import annotations

import gc

import pytest

from agent_tui.tui.gc_policy import FULL_BACKSTOP, FULL_DUE, QuietCollector, tune_runtime
from agent_tui.vocab.clock import ManualClock
from tests.fakes.collector import FakeCollector


@pytest.fixture
def rec() -> FakeCollector:
    return FakeCollector()


def collector(clock: ManualClock, rec: FakeCollector) -> QuietCollector:
    return QuietCollector(clock, 1.0, pending=lambda: rec.pending, collect=rec.collect, enabled=lambda: rec.enabled)


def test_a_due_collection_runs_once_the_app_has_been_quiet(clock: ManualClock, rec: FakeCollector) -> None:
    quiet = collector(clock, rec)
    rec.pending = FULL_DUE
    assert not quiet.tick()  # just started: not quiet for a second yet
    clock.advance(1.0)
    assert quiet.tick() and rec.collections == 1
    assert not quiet.tick() and rec.collections == 1  # nothing due any more


def test_nothing_is_collected_before_it_is_due(clock: ManualClock, rec: FakeCollector) -> None:
    quiet = collector(clock, rec)
    rec.pending = FULL_DUE - 1
    clock.advance(60)
    assert not quiet.tick() and rec.collections == 0


def test_activity_postpones_it(clock: ManualClock, rec: FakeCollector) -> None:
    quiet = collector(clock, rec)
    rec.pending = FULL_DUE
    clock.advance(0.9)
    quiet.busy()
    clock.advance(0.9)
    assert not quiet.tick()
    clock.advance(0.1)
    assert quiet.tick() and rec.collections == 1


def test_nothing_is_collected_while_collection_is_paused(clock: ManualClock, rec: FakeCollector) -> None:
    quiet = collector(clock, rec)
    rec.pending, rec.enabled = FULL_DUE, False
    clock.advance(5)
    assert not quiet.tick() and rec.collections == 0
    rec.enabled = True
    assert quiet.tick() and rec.collections == 1


def test_tune_runtime_leaves_full_collections_to_the_backstop() -> None:
    before = gc.get_threshold()
    try:
        tune_runtime()
        assert gc.isenabled() and gc.get_threshold()[2] == FULL_BACKSTOP > FULL_DUE
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
