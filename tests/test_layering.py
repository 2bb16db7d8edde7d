"""Architecture rules that keep the house easy to live in."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "agent_tui"


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_never_imports_textual() -> None:
    offenders = []
    for layer in ("core", "llm", "tools"):
        for path in (PACKAGE / layer).rglob("*.py"):
            if any(name.split(".")[0] == "textual" for name in _imports(path)):
                offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []


def test_litellm_is_never_imported_at_module_level() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if any(n.split(".")[0] == "litellm" for n in names):
                    offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []


def _imported_modules(*args: str) -> set[str]:
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['agent-tui', *{list(args)!r}]\n"
        "try:\n"
        "    runpy.run_module('agent_tui', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    line = next(l for l in out.stdout.splitlines() if l.startswith("MODULES"))
    return set(line.split()[1:])


def test_version_path_stays_light() -> None:
    modules = _imported_modules("--version")
    heavy = {m for m in modules if m.split(".")[0] in {"litellm", "textual", "pydantic", "aiosqlite"}}
    assert heavy == set()
