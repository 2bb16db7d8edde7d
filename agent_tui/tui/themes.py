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

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

from agent_tui.core import paths

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


def _check_colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"not a colour: {value!r}") from None
    return value


class ThemeColors(BaseModel):
    model_config = ConfigDict(extra="forbid")
    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    success: str | None = None
    warning: str | None = None
    error: str | None = None

    @field_validator("*")
    @classmethod
    def _colour(cls, value: str | None) -> str | None:
        return None if value is None else _check_colour(value)


class ThemeFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    dark: bool = True
    colors: ThemeColors
    variables: dict[str, str] = {}

    @field_validator("variables")
    @classmethod
    def _known_colours(cls, values: dict[str, str]) -> dict[str, str]:
        for key, value in values.items():
            if key not in APP_VARIABLE_DEFAULTS:
                known = ", ".join(APP_VARIABLE_DEFAULTS)
                raise ValueError(f"unknown variable {key!r} (known: {known})")
            _check_colour(value)
        return values

    def to_theme(self) -> Theme:
        return Theme(
            name=self.name,
            dark=self.dark,
            variables=dict(self.variables),
            **self.colors.model_dump(exclude_none=True),
        )


def parse_theme(text: str, source: str) -> Theme:
    """One theme from TOML text; ``source`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ThemeError(f"{source}: invalid TOML: {error}") from None
    try:
        return ThemeFile.model_validate(data).to_theme()
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ThemeError(f"{source}: {key}: {first['msg'].removeprefix('Value error, ')}") from None


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
