"""Warm processes for the warm-start tests: one per module (``warm``), and more on demand
(``warms``: each in its own runtime directory), all stopped when their scope ends."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from .helpers import Warm, kill_leftovers

IDLE_MINUTES = "10"  # a warm process a failed test leaves behind still ends by itself


class Pool:
    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self._factory = factory
        self.made: list[Warm] = []

    def __call__(self, *, public: bool = False, **env: str) -> Warm:
        env.setdefault("AGENT_TUI_WARM__IDLE_MINUTES", IDLE_MINUTES)
        warm = Warm(self._factory.mktemp("warm"), public=public, **env)
        self.made.append(warm)
        return warm

    def finish(self) -> None:
        problems = []
        for warm in self.made:
            try:
                warm.finish()
            except AssertionError as error:
                problems.append(str(error))
        assert not problems, problems


@pytest.fixture(scope="module")
def module_warms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    pool = Pool(tmp_path_factory)
    yield pool
    pool.finish()


@pytest.fixture
def warms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Warm]]:
    """``warms(**env)``: a warm process of the test's own (not started), stopped after the test."""
    pool = Pool(tmp_path_factory)
    yield pool
    pool.finish()


@pytest.fixture(scope="module")
def warm(module_warms: Pool) -> Warm:
    """The module's warm process, started (its runtime directory may be entered by other users:
    only the private ``agent-tui`` directory keeps them out)."""
    process = module_warms(public=True)
    process.start()
    return process


@pytest.fixture(autouse=True)
async def kill_leftover_launches() -> AsyncIterator[None]:
    """A failed test's launches (in-process ones too, which no warm process stops) end with it."""
    yield
    await kill_leftovers()
