"""docs/architecture.md is a map of the code: every module has its one row, the door section names every door name.

The checker is ``docs/map.py`` (``python docs/map.py`` prints what is off); its docstring defines the row
format. Each checker is first tested on small synthetic documents, so these tests can fail.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("architecture_map", ROOT / "docs" / "map.py")
assert _spec is not None and _spec.loader is not None
docmap = sys.modules.setdefault("architecture_map", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(docmap)

DOC = (ROOT / "docs" / "architecture.md").read_text()
CORE = ROOT / "agent_tui" / "core"


# -- the checkers, on synthetic documents ------------------------------------------------

SYNTHETIC = """\
# title

## The map

| module | one idea |
|---|---|
| `core/api.py` | not a package section: this table is no module table |

## core (`agent_tui/core`)

### Modules

| module | one idea |
|---|---|
| `api.py` | the door |
| `store/db.py` | connections |
| `store/db.py` | connections again |
| `store/gone.py` | a module that is not there |
| `events.py` | the event types |

| floor | rooms |
|---|---|
| `store/queries.py` | not a module table: its rows are not read |

### The door

`Sessions(store)` is the facade; `paths` is a module; `close()` closes.

### After the door

`open_sessions` is named here, outside the door section.

## tools (`agent_tui/tools`)

| module | one idea |
|---|---|
| `agent_tui/core/sessions.py` | a core module in the tools section |

## cli and commands (`agent_tui`, `agent_tui/commands`)

| module | one idea |
|---|---|
| `cli.py` | the root package's module |
| `commands/run_cmd.py` | `run` |
"""

MODULES = {
    "__init__.py",
    "cli.py",
    "commands/__init__.py",
    "commands/run_cmd.py",
    "core/__init__.py",
    "core/api.py",
    "core/events.py",
    "core/sessions.py",
    "core/store/__init__.py",
    "core/store/db.py",
    "core/store/queries.py",
    "tools/__init__.py",
    "tools/read.py",
}


def test_rows_resolve_against_their_sections_first_package() -> None:
    rows = [(row.module, row.section) for row in docmap.module_rows(SYNTHETIC)]
    assert rows == [
        ("core/api.py", "core (`agent_tui/core`)"),
        ("core/store/db.py", "core (`agent_tui/core`)"),
        ("core/store/db.py", "core (`agent_tui/core`)"),
        ("core/store/gone.py", "core (`agent_tui/core`)"),
        ("core/events.py", "core (`agent_tui/core`)"),
        ("core/sessions.py", "tools (`agent_tui/tools`)"),
        ("cli.py", "cli and commands (`agent_tui`, `agent_tui/commands`)"),
        ("commands/run_cmd.py", "cli and commands (`agent_tui`, `agent_tui/commands`)"),
    ]


def test_the_module_checker_finds_a_missing_a_doubled_an_unknown_and_a_misplaced_row() -> None:
    report = docmap.check_modules(SYNTHETIC, MODULES)
    assert report.missing == ["core/store/queries.py", "tools/read.py"]  # __init__.py files need no row
    assert report.duplicated == ["core/store/db.py"]
    assert report.unknown == ["core/store/gone.py (line 18)"]
    assert report.misplaced == [
        "core/sessions.py (line 37, in 'tools (`agent_tui/tools`)', belongs in 'core (`agent_tui/core`)')"
    ]
    assert not report.ok()


def test_the_module_checker_passes_a_document_that_maps_its_modules() -> None:
    doc = """\
## core (`agent_tui/core`)

| module | one idea |
|---|---|
| `api.py` | the door |
| `store/db.py` (+ `schema.sql`) | connections |

## cli (`agent_tui`)

| module | one idea |
|---|---|
| `cli.py` | argv |
"""
    report = docmap.check_modules(doc, {"cli.py", "core/__init__.py", "core/api.py", "core/store/db.py"})
    assert report.ok(), report


def test_the_door_checker_finds_a_missing_name() -> None:
    door = docmap.door_section(SYNTHETIC)
    assert "open_sessions" not in door and "`paths`" in door
    assert docmap.missing_spans(door, ["Sessions", "paths", "close", "open_sessions", "Session", "path"]) == [
        "open_sessions",
        "Session",
        "path",
    ]


def test_the_api_and_facade_readers_take_their_names_from_the_source() -> None:
    api = '_EXPORTS: dict[str, str] = {"Sessions": "sessions", "Runtime": "runtime"}\n_MODULES = {"paths": "x"}\nOTHER = {"no": 1}\n'
    assert docmap.api_names(api) == ["Sessions", "Runtime", "paths"]
    facade = (
        "class Sessions:\n    def __init__(self): ...\n    async def get(self): ...\n    def _private(self): ...\n"
        "    @property\n    def database(self): ...\nclass Other:\n    def no(self): ...\n"
    )
    assert docmap.facade_methods(facade) == ["get", "database"]


# -- the real document ---------------------------------------------------------------------


def test_every_module_has_exactly_one_row() -> None:
    report = docmap.check_modules(DOC, docmap.code_modules())
    assert (report.missing, report.duplicated) == ([], []), "run python docs/map.py"


def test_every_row_names_a_module_in_its_packages_section() -> None:
    report = docmap.check_modules(DOC, docmap.code_modules())
    assert (report.unknown, report.misplaced) == ([], []), "run python docs/map.py"


def test_the_door_section_names_every_name_of_core_api() -> None:
    names = docmap.api_names((CORE / "api.py").read_text())
    assert len(names) > 50
    assert docmap.missing_spans(docmap.door_section(DOC), names) == []


def test_the_door_section_names_every_public_method_of_the_facade() -> None:
    methods = docmap.facade_methods((CORE / "sessions.py").read_text())
    assert "rewind" in methods
    assert docmap.missing_spans(docmap.door_section(DOC), methods) == []
