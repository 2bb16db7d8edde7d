"""YAML front matter: the ``---`` block at the top of a Markdown file (skills, agent definitions).

A file that does not start with a ``---`` line has none: ``({}, text)``. A block that
is never closed, is not valid YAML or is not a mapping raises ``FrontMatterError``
with one line saying why (the caller names the file).
"""

from __future__ import annotations

from typing import Any

FENCE = "---"


class FrontMatterError(ValueError):
    pass


def read_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter as a mapping, and the body after it (unchanged)."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != FENCE:
        return {}, text
    index = next((i for i, line in enumerate(lines) if i > 0 and line.rstrip() == FENCE), None)
    if index is None:
        raise FrontMatterError("the front matter's opening --- has no closing ---")
    import yaml  # only files that have front matter pay for it

    try:
        data = yaml.safe_load("".join(lines[1:index]))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(error, "problem", None) or type(error).__name__
        raise FrontMatterError(f"the front matter is not valid YAML{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontMatterError(f"the front matter is a {type(data).__name__}, not a mapping of keys")
    return {str(key): value for key, value in data.items()}, "".join(lines[index + 1 :])
