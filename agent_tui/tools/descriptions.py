"""Tool descriptions live as Markdown files next to their tools (package data).

The how-to the model reads (limits, when to use a tool and when not, examples)
is prose that grows and gets reviewed as prose; kept in ``.md`` files it is not
buried in Python strings, and ``pyproject.toml`` ships the files with the package.
"""

from __future__ import annotations

from importlib import resources


def tool_description(package: str, filename: str) -> str:
    """The text of ``filename`` in ``package`` (e.g. ``agent_tui.tools``, ``read.md``), trimmed."""
    return resources.files(package).joinpath(filename).read_text(encoding="utf-8").strip()
