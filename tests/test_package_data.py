"""Text the package reads at run time (prompts, tool descriptions) ships with an installed copy."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_markdown_file_in_the_package_is_declared_package_data() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    covered = {
        path
        for package, patterns in declared.items()
        for pattern in patterns
        for path in (ROOT / package.replace(".", "/")).glob(pattern)
    }
    shipped = set((ROOT / "agent_tui").rglob("*.md"))
    assert shipped, "no Markdown in the package: the test looks in the wrong place"
    assert shipped <= covered, sorted(str(p.relative_to(ROOT)) for p in shipped - covered)
