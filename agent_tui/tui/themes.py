"""Theme files: TOML in ``themes/`` (repo) and the user's themes dir -> Textual ``Theme``s.

A theme file holds ``name``, ``dark``, a ``[colors]`` table of Textual theme colours
and a ``[variables]`` table of agent-tui's own colours (diff, reasoning, badges).
Widgets style themselves only through these variables, never with hard-coded
colours, so a theme file fully decides how the app looks. Later directories win,
so a user file can replace a bundled theme of the same name.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from agent_tui.core.api import paths

BUNDLED_THEMES_DIR = Path(__file__).resolve().parents[2] / "themes"
DEFAULT_THEME = "agent-dark"

# App-specific theme variables and their fallbacks (used when a theme omits one).
APP_VARIABLE_DEFAULTS: dict[str, str] = {
    "diff-added": "#87d787",
    "diff-removed": "#ff8787",
    "diff-added-background": "#1f3324",
    "diff-removed-background": "#3a2024",
    "diff-hunk": "#5fafff",
    "reasoning-text": "#7c8493",
    "quiet-text": "#6c7380",
    "user-accent": "#5fafff",
    "badge-steer": "#d7af5f",
    "badge-queued": "#8787d7",
}


class ThemeError(ValueError):
    """A theme file that cannot be used; the message names the file and key."""


COLOR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "success",
    "warning",
    "error",
)
TOP_KEYS = ("name", "dark", "colors", "variables")


class _Invalid(Exception):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")


def _table(data: Any, key: str, known: tuple[str, ...] | dict[str, str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise _Invalid(key, "must be a table")
    for name in data:
        if name not in known:
            what = "variable" if key == "variables" else "key"
            raise _Invalid(
                key if key != "(top level)" else name, f"unknown {what} {name!r} (known: {', '.join(known)})"
            )
    return data


def _colour(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise _Invalid(key, "must be a colour string")
    try:
        Color.parse(value)
    except ColorParseError:
        raise _Invalid(key, f"not a colour: {value!r}") from None
    return value


def theme_from_table(data: Any) -> Theme:
    """Validate a parsed theme file by hand.

    The file is a boundary, so every key is checked with a specific message;
    it is also on the start path, where building pydantic models for it cost
    more (~20 ms) than the rest of theme loading together.
    """
    data = _table(data, "(top level)", TOP_KEYS)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _Invalid("name", "Field required" if name is None else "must be a non-empty string")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise _Invalid("dark", "must be true or false")
    if "colors" not in data:
        raise _Invalid("colors", "Field required")
    colors = _table(data["colors"], "colors", COLOR_KEYS)
    if "primary" not in colors:
        raise _Invalid("colors.primary", "Field required")
    variables = _table(data.get("variables", {}), "variables", APP_VARIABLE_DEFAULTS)
    checked_variables = {k: _colour(v, f"variables.{k}") for k, v in variables.items()}
    colours = {k: _colour(v, f"colors.{k}") for k, v in colors.items()}
    return Theme(
        name=name,
        dark=dark,
        variables=checked_variables,
        primary=colours["primary"],
        secondary=colours.get("secondary"),
        accent=colours.get("accent"),
        foreground=colours.get("foreground"),
        background=colours.get("background"),
        surface=colours.get("surface"),
        panel=colours.get("panel"),
        boost=colours.get("boost"),
        success=colours.get("success"),
        warning=colours.get("warning"),
        error=colours.get("error"),
    )


def parse_theme(text: str, source: str) -> Theme:
    """One theme from TOML text; ``source`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ThemeError(f"{source}: invalid TOML: {error}") from None
    try:
        return theme_from_table(data)
    except _Invalid as error:
        raise ThemeError(f"{source}: {error}") from None


def load_theme_file(path: Path) -> Theme:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ThemeError(f"{path}: cannot read: {error}") from None
    return parse_theme(text, str(path))


def theme_dirs() -> list[Path]:
    """Where themes are looked up, lowest precedence first."""
    return [BUNDLED_THEMES_DIR, paths.user_themes_dir()]


def load_themes(dirs: list[Path] | None = None) -> tuple[dict[str, Theme], list[str]]:
    """Every readable theme in ``dirs`` by name, plus one error line per bad file."""
    themes: dict[str, Theme] = {}
    errors: list[str] = []
    for directory in theme_dirs() if dirs is None else dirs:
        for path in sorted(directory.glob("*.toml")) if directory.is_dir() else []:
            try:
                theme = load_theme_file(path)
            except ThemeError as error:
                errors.append(str(error))
                continue
            themes[theme.name] = theme
    return themes, errors
