"""Parsed CSS kept for the whole process, so a warm launch's app starts with its CSS parsed.

Textual caches parsed rules per ``Stylesheet`` and re-parses into a fresh instance on
every theme refresh, so each app parses all its CSS (the app's file and every widget's
``DEFAULT_CSS``) again: ~15 ms of a warm launch's ~45 ms to the first frame. The warm
process rehearses the app once (``bootstrap.rehearse``); each launch it forks finds the
rules here. The key is everything the rules depend on: the CSS text, where it was read
from, its defaults/tie-breaker/scope and the theme's variables. Parsed rules are never
changed after parsing (Textual itself shares them between a stylesheet and its re-parse).
"""

from __future__ import annotations

from textual.css.model import RuleSet
from textual.css.stylesheet import CSSLocation, Stylesheet

_RULES: dict[tuple[object, ...], list[RuleSet]] = {}


class SharedStylesheet(Stylesheet):
    """A ``Stylesheet`` whose parsed rules outlive it."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: tuple[tuple[str, str], ...] | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def _parse_rules(
        self, css: str, read_from: CSSLocation, is_default_rules: bool = False, tie_breaker: int = 0, scope: str = ""
    ) -> list[RuleSet]:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self._variables.items()))
        key = (self._variables_key, css, read_from, is_default_rules, tie_breaker, scope)
        rules = _RULES.get(key)
        if rules is None:
            rules = _RULES[key] = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    def reparse(self) -> None:
        """In place: Textual's re-parses into a fresh ``Stylesheet``, which would miss the shared
        rules. On an error the rules stay as they were, as with Textual's."""
        self.parse()


def parsed_count() -> int:
    """How many CSS sources are parsed and kept (for tests and the warm process's log)."""
    return len(_RULES)
