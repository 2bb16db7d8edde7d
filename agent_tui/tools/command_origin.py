"""Where a plain command name would be found: a rule names a program, not a project file.

``git status *`` is meant for the installed git. If ``PATH`` has a relative
entry (``.``, ``bin``, an empty one) or an entry inside the project, ``git``
may be a file the project (or the agent) just wrote, so the command is asked
instead. An exported shell function of that name (``BASH_FUNC_git%%``) would
run instead of the program too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from agent_tui.tools.paths import is_inside


def project_command(names: Iterable[str], environ: Mapping[str, str], roots: Iterable[Path]) -> str | None:
    """Why one of ``names`` would not run an installed program from outside ``roots`` (``None``: none)."""
    roots = [Path(os.path.realpath(root)) for root in roots]
    entries = environ.get("PATH", os.defpath).split(os.pathsep)
    for name in dict.fromkeys(names):
        if f"BASH_FUNC_{name}%%" in environ:
            return f"{name!r} is an exported shell function"
        found = _lookup(name, entries)
        if found is None:
            continue
        if not os.path.isabs(found):
            return f"{name!r} would be looked up in the relative PATH entry {os.path.dirname(found) or '.'!r}"
        real = Path(os.path.realpath(found))
        if any(is_inside(real, root) or is_inside(Path(os.path.abspath(found)), root) for root in roots):
            return f"{name!r} would run {found}, inside the project"
    return None


def _lookup(name: str, entries: list[str]) -> str | None:
    """The first PATH entry holding an executable ``name``; a relative entry counts at once
    (bash resolves it against a working directory nobody checked)."""
    for entry in entries:
        if not entry or not os.path.isabs(entry):
            return os.path.join(entry, name)
        candidate = os.path.join(entry, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None
