"""Parsed CSS outlives its app: a second app in the process (a warm launch) parses nothing, and
another theme's variables are never served from the first theme's rules."""

from __future__ import annotations

import subprocess
import sys

import pytest
from textual.css import stylesheet

from agent_tui.tui import shared_css
from agent_tui.tui.themes import BUNDLED_THEMES_DIR


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each CSS source Textual parses, by where it was read from; the shared rules start empty."""
    monkeypatch.setattr(shared_css, "_RULES", {})
    calls: list[str] = []
    parse = stylesheet.parse

    def counted(scope, css, read_from, *args, **kwargs):  # noqa: ANN001, ANN202 - Textual's signature
        calls.append(str(read_from))
        return parse(scope, css, read_from, *args, **kwargs)

    monkeypatch.setattr(stylesheet, "parse", counted)
    return calls


async def _first_frame(make_app, theme: str) -> tuple[str, str]:
    """The screen's and the footer's background once the app is up."""
    app = make_app(theme=theme, theme_dirs=[BUNDLED_THEMES_DIR])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        return str(app.screen.styles.background), str(app.screen.query_one("Footer").styles.background)


async def test_a_second_app_with_the_same_theme_parses_no_css(make_app, parses: list[str]) -> None:
    first = await _first_frame(make_app, "agent-dark")
    assert any("app.tcss" in where for where in parses) and shared_css.parsed_count() > 0
    parses.clear()
    assert await _first_frame(make_app, "agent-dark") == first
    assert parses == []


async def test_another_theme_is_parsed_with_its_own_colours(make_app, parses: list[str]) -> None:
    dark = await _first_frame(make_app, "agent-dark")
    parses.clear()
    light = await _first_frame(make_app, "agent-light")
    assert any("app.tcss" in where for where in parses)
    assert light != dark and light[0] != dark[0]
    parses.clear()
    assert await _first_frame(make_app, "agent-dark") == dark and parses == []


def test_rehearsal_leaves_the_css_parsed_and_no_thread_behind(tmp_path) -> None:
    """What the warm process runs before it forks (so no thread may outlive it); a launch's app in
    that process then parses no CSS. Its own process: Textual's class caches are process-wide."""
    probe = (
        "import threading\nfrom textual.css import stylesheet\nfrom agent_tui.tui import bootstrap, shared_css\n"
        "bootstrap.rehearse()\nrehearsed = shared_css.parsed_count()\n"
        "parse, calls = stylesheet.parse, []\n"
        "stylesheet.parse = lambda *a, **k: calls.append(a[2]) or parse(*a, **k)\n"
        "bootstrap.rehearse()\n"
        "print(rehearsed > 10, threading.active_count(), calls)\n"
    )
    env = {"AGENT_TUI_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True 1 []"
