"""Theme files -> Textual themes, with one clear error per bad file."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.core.api import paths
from agent_tui.tui.theme_watch import watch_theme_files
from agent_tui.tui.themes import APP_VARIABLE_DEFAULTS, ThemeError, load_themes, parse_theme, theme_dirs

GOOD = """
name = "mine"
dark = false
[colors]
primary = "#112233"
background = "white"
[variables]
diff-added = "#00ff00"
"""


def test_bundled_dark_and_light_themes_define_every_app_variable() -> None:
    themes, errors = load_themes()
    assert errors == []
    assert themes["agent-dark"].dark and not themes["agent-light"].dark
    for name in ("agent-dark", "agent-light"):
        assert set(themes[name].variables) == set(APP_VARIABLE_DEFAULTS)


def test_user_dir_adds_and_overrides_themes(tmp_path: Path) -> None:
    user = paths.user_themes_dir()
    user.mkdir(parents=True)
    (user / "mine.toml").write_text(GOOD)
    (user / "dark.toml").write_text(GOOD.replace('"mine"', '"agent-dark"'))
    assert theme_dirs()[-1] == user
    themes, errors = load_themes()
    assert errors == []
    assert themes["mine"].primary == "#112233" and themes["mine"].variables == {"diff-added": "#00ff00"}
    assert themes["agent-dark"].primary == "#112233"


async def test_the_watcher_imports_what_it_needs_off_the_event_loop(tmp_path: Path, monkeypatch) -> None:
    import importlib
    import threading

    from agent_tui.tui import theme_watch

    imported: list[tuple[str, bool]] = []
    real_import = importlib.import_module

    def recording_import(name: str, package: str | None = None):  # noqa: ANN202
        imported.append((name, threading.current_thread() is threading.main_thread()))
        return real_import(name, package)

    monkeypatch.setattr(theme_watch.importlib, "import_module", recording_import)
    stop = asyncio.Event()
    stop.set()  # stop at once: only the start-up matters here
    await asyncio.wait_for(watch_theme_files([tmp_path], print, print, stop), 10)
    # awatch's first call imports anyio's asyncio backend (~70 ms) unless it is already loaded
    assert ("watchfiles", False) in imported and ("anyio._backends._asyncio", False) in imported


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = ", "invalid TOML"),
        ('name = "x"\n[colors]\nprimary = "nope"', "colors.primary: not a colour: 'nope'"),
        ('name = "x"\n[colors]\nsecondary = "#fff"', "colors.primary: Field required"),
        ('name = "x"\n[colors]\nprimary = "#fff"\n[variables]\nshiny = "#fff"', "unknown variable 'shiny'"),
    ],
)
def test_bad_theme_files_are_one_specific_line(text: str, message: str) -> None:
    with pytest.raises(ThemeError) as caught:
        parse_theme(text, "t.toml")
    assert str(caught.value).startswith("t.toml: ") and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_bad_file_does_not_hide_the_good_ones(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text("name = ")
    (tmp_path / "b.toml").write_text(GOOD)
    themes, errors = load_themes([tmp_path])
    assert list(themes) == ["mine"] and len(errors) == 1 and "a.toml" in errors[0]


async def test_watcher_reloads_a_changed_file(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(GOOD)
    seen: asyncio.Queue = asyncio.Queue()
    stop = asyncio.Event()
    task = asyncio.create_task(watch_theme_files([tmp_path], seen.put_nowait, seen.put_nowait, stop, debounce_ms=20))

    async def next_seen(want: Callable[[object], bool]) -> object:
        """The first reload that ``want`` accepts (a save caught half-written reloads as an error first)."""
        while True:
            item = await asyncio.wait_for(seen.get(), 10)
            if want(item):
                return item

    changed = GOOD.replace("#112233", "#445566")
    theme = None
    for _ in range(100):  # the OS watch starts in the task: save again until it has seen a save
        (tmp_path / "mine.toml").write_text(changed)
        with contextlib.suppress(TimeoutError):
            theme = await asyncio.wait_for(next_seen(lambda t: not isinstance(t, str)), 0.1)
            break
    assert theme is not None and theme.primary == "#445566"
    (tmp_path / "mine.toml").write_text("name = ")
    error = await next_seen(lambda t: isinstance(t, str) or t.primary != "#445566")
    assert isinstance(error, str) and "invalid TOML" in error
    stop.set()
    await asyncio.wait_for(task, 5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[colors]\nprimary = "#fff"', "name: Field required"),
        ('name = "x"\ndark = "yes"\n[colors]\nprimary = "#fff"', "dark: must be true or false"),
        ('name = "x"\ncolour = 1\n[colors]\nprimary = "#fff"', "colour: unknown key 'colour'"),
        ('name = "x"\n[colors]\nprimary = "#fff"\nshade = "#000"', "colors: unknown key 'shade'"),
        ('name = "x"\n[colors]\nprimary = 3', "colors.primary: must be a colour string"),
        (
            'name = "x"\n[colors]\nprimary = "#fff"\n[variables]\ndiff-added = "bogus"',
            "variables.diff-added: not a colour",
        ),
    ],
)
def test_every_key_is_checked(text: str, message: str) -> None:
    with pytest.raises(ThemeError) as caught:
        parse_theme(text, "t.toml")
    assert message in str(caught.value)
