"""Is docs/architecture.md still a map of the code? Run ``python docs/map.py`` to see what is off.

What the map must hold (``tests/test_architecture_doc.py`` asserts it):

- **Module rows.** Every ``.py`` file under ``agent_tui/`` but the ``__init__.py`` files is the first cell of
  exactly one row of a module table, in the section of its package. A *package section* is a ``## `` heading
  that names one or more packages as backticked paths, e.g. ``## core (`agent_tui/core`)`` or
  ``## cli and commands (`agent_tui`, `agent_tui/commands`)``. A *module table* is a table in such a section
  whose header row starts ``| module |``. A row's first cell starts with one backticked path ending in
  ``.py``, relative to the section's *first* named package (``store/writer.py`` in the core section is
  ``agent_tui/core/store/writer.py``); a path starting ``agent_tui/`` is taken as it is. A module belongs to
  the section naming the longest package path it lies under. ``__init__.py`` rows may be there or not, but
  like every row they must name a file that exists, once, in its own section.
- **The door.** Every name of ``core/api.py``'s ``_EXPORTS`` and ``_MODULES`` appears as a code span (the
  name alone, or followed by something that is not part of an identifier: ``close()``) in the section whose
  heading starts ``The door``; so does every public method of ``core/sessions.py``'s ``Sessions``.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "agent_tui"
DOC = ROOT / "docs" / "architecture.md"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_PACKAGE_NAME = re.compile(r"`(agent_tui(?:/[\w/]*?)?)/?`")
_FIRST_CELL_PATH = re.compile(r"^`([\w./-]+\.py)`")
_SPAN = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Row:
    module: str
    """The path relative to ``agent_tui/`` (``core/store/writer.py``)."""
    section: str
    line: int


@dataclass
class Report:
    missing: list[str] = field(default_factory=list)
    """Modules no row names."""
    duplicated: list[str] = field(default_factory=list)
    """Modules more than one row names."""
    unknown: list[str] = field(default_factory=list)
    """Rows naming no file of the package, as ``module (line N)``."""
    misplaced: list[str] = field(default_factory=list)
    """Rows outside their package's section, as ``module (line N, in SECTION, belongs in SECTION)``."""

    def ok(self) -> bool:
        return not (self.missing or self.duplicated or self.unknown or self.misplaced)


def code_modules(package: Path = PACKAGE) -> set[str]:
    """Every module under ``package`` as a path relative to it, ``__init__.py`` files included."""
    return {path.relative_to(package).as_posix() for path in package.rglob("*.py")}


def _prefix(name: str) -> str:
    """``agent_tui/core`` -> ``core/``; ``agent_tui`` -> ``""``."""
    rest = name.removeprefix("agent_tui").strip("/")
    return f"{rest}/" if rest else ""


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def package_sections(doc: str) -> dict[str, list[str]]:
    """Each package section's heading -> the package prefixes it names (``core/``; ``""`` for the root)."""
    found: dict[str, list[str]] = {}
    for line in doc.splitlines():
        heading = _HEADING.match(line)
        if heading and len(heading.group(1)) == 2:
            names = _PACKAGE_NAME.findall(heading.group(2))
            if names:
                found[heading.group(2)] = [_prefix(name) for name in names]
    return found


def module_rows(doc: str) -> list[Row]:
    """The first cells of the module tables' rows, resolved against their section's first package."""
    rows: list[Row] = []
    section: str | None = None
    base = ""
    in_table = False
    for number, line in enumerate(doc.splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading:
            in_table = False
            if len(heading.group(1)) == 2:
                names = _PACKAGE_NAME.findall(heading.group(2))
                section = heading.group(2) if names else None
                base = _prefix(names[0]) if names else ""
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if cells and cells[0] == "module":
            in_table = section is not None
            continue
        if not in_table or set(cells[0]) <= set("-: "):
            continue
        path = _FIRST_CELL_PATH.match(cells[0])
        if path is None:  # a row that names no module (there should be none)
            rows.append(Row(f"? {cells[0]}", section or "", number))
            continue
        name = path.group(1)
        module = name.removeprefix("agent_tui/") if name.startswith("agent_tui/") else base + name
        rows.append(Row(module, section or "", number))
    return rows


def _owner(module: str, sections: dict[str, list[str]]) -> str | None:
    best: tuple[int, str] | None = None
    for title, prefixes in sections.items():
        for prefix in prefixes:
            if module.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), title)
    return best[1] if best else None


def check_modules(doc: str, modules: set[str]) -> Report:
    """``modules``: paths relative to ``agent_tui/``, ``__init__.py`` files included (they need no row)."""
    rows = module_rows(doc)
    sections = package_sections(doc)
    counts = Counter(row.module for row in rows)
    report = Report()
    required = sorted(m for m in modules if not m.endswith("__init__.py"))
    report.missing = [m for m in required if counts[m] == 0]
    report.duplicated = sorted(m for m, n in counts.items() if n > 1 and m in modules)
    for row in rows:
        if row.module not in modules:
            report.unknown.append(f"{row.module} (line {row.line})")
            continue
        owner = _owner(row.module, sections)
        if owner != row.section:
            report.misplaced.append(f"{row.module} (line {row.line}, in {row.section!r}, belongs in {owner!r})")
    return report


def door_section(doc: str) -> str:
    """The text under the heading that starts ``The door``, up to the next heading as high or higher."""
    lines = doc.splitlines()
    for start, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading and heading.group(2).startswith("The door"):
            level = len(heading.group(1))
            end = next(
                (
                    i
                    for i in range(start + 1, len(lines))
                    if (h := _HEADING.match(lines[i])) and len(h.group(1)) <= level
                ),
                len(lines),
            )
            return "\n".join(lines[start + 1 : end])
    return ""


def missing_spans(text: str, names: list[str]) -> list[str]:
    """The names no code span of ``text`` holds (alone, or followed by a non-identifier character)."""
    spans = _SPAN.findall(text)
    return [n for n in names if not any(re.match(rf"{re.escape(n)}(?![\w])", span) for span in spans)]


def api_names(source: str) -> list[str]:
    """The keys of ``_EXPORTS`` and ``_MODULES`` in ``core/api.py``'s source."""
    names: list[str] = []
    for node in ast.parse(source).body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) else None)
        )
        if isinstance(target, ast.Name) and target.id in ("_EXPORTS", "_MODULES") and node.value is not None:
            names += list(ast.literal_eval(node.value))
    return names


def facade_methods(source: str, cls: str = "Sessions") -> list[str]:
    """The public methods and properties of ``cls`` in ``core/sessions.py``'s source."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return [
                item.name
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("_")
            ]
    return []


def main() -> int:
    doc = DOC.read_text()
    report = check_modules(doc, code_modules())
    door = door_section(doc)
    api = missing_spans(door, api_names((PACKAGE / "core" / "api.py").read_text()))
    facade = missing_spans(door, facade_methods((PACKAGE / "core" / "sessions.py").read_text()))
    for title, items in (
        ("modules without a row", report.missing),
        ("modules with more than one row", report.duplicated),
        ("rows naming no module", report.unknown),
        ("rows outside their package's section", report.misplaced),
        ("core/api.py names missing from the door section", api),
        ("Sessions methods missing from the door section", facade),
    ):
        if items:
            print(f"{title}:")
            print("".join(f"  {item}\n" for item in items), end="")
    clean = report.ok() and not api and not facade
    if clean:
        print("docs/architecture.md maps the code")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
