"""Architecture rules that keep the house easy to live in."""

from __future__ import annotations

import ast
import re
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


DOOR = {"agent_tui.core.api"}
"""What ``tui/``, ``server/``, ``commands/`` and ``warm/`` may import from core: the door (the event types too, as ``core.api.events``)."""
BELOW_CORE = ("agent_tui.llm", "agent_tui.tools")
"""Reached from above only through core (DESIGN §1: tui/server/cli -> core -> llm, tools)."""
OUTSIDE_CORE = ("tui", "server", "commands", "warm")


_MODULE_PATH = re.compile(r"^agent_tui(\.\w+)+$")


def _module_of(path: Path) -> str:
    return ".".join(("agent_tui", *path.relative_to(PACKAGE).with_suffix("").parts))


def imported_names(source: str, module: str) -> list[tuple[int, str]]:
    """Every module ``source`` imports (any depth, relative ones resolved against ``module``), with its line.

    ``from agent_tui.core import name`` counts as ``agent_tui.core.name`` (those packages' names are
    their submodules), as does ``from agent_tui import llm``; a call given a literal module path (``import_module("agent_tui.x")``,
    ``to_thread(import_module, "agent_tui.x")``) counts as an import.
    """
    found: list[tuple[int, str]] = []
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([base] if base else [])])
            if base in ("agent_tui", "agent_tui.core"):
                found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, base))
        elif isinstance(node, ast.Call):  # import_module("x") or to_thread(import_module, "x")
            found += [
                (node.lineno, arg.value)
                for arg in node.args
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _MODULE_PATH.match(arg.value)
            ]
    return found


def door_violations(source: str, module: str) -> list[str]:
    """Imports of core modules other than the door (``agent_tui.core`` itself is only a package),
    and of the layers below core."""
    bad = []
    for line, name in imported_names(source, module):
        if any(name == below or name.startswith(below + ".") for below in BELOW_CORE):
            bad.append(f"{module}:{line}: {name}")
            continue
        if name == "agent_tui.core" or not name.startswith("agent_tui.core."):
            continue
        if not any(name == door or name.startswith(door + ".") for door in DOOR):
            bad.append(f"{module}:{line}: {name}")
    return bad


def test_the_door_checker_catches_each_kind_of_violation() -> None:
    where = "agent_tui.tui.widgets.view"
    assert door_violations("from agent_tui.core.store.store import Store", where) == [
        f"{where}:1: agent_tui.core.store.store"
    ]
    assert door_violations("def f():\n    import agent_tui.core.run.runner", where) == [
        f"{where}:2: agent_tui.core.run.runner"
    ]
    assert door_violations("from agent_tui.core import paths", where) == [f"{where}:1: agent_tui.core.paths"]
    assert door_violations("from ...core.store.bus import Bus", where) == [f"{where}:1: agent_tui.core.store.bus"]
    assert door_violations("from agent_tui.core import events", where) == [f"{where}:1: agent_tui.core.events"]
    assert door_violations("importlib.import_module('agent_tui.core.sessions')", where) == [
        f"{where}:1: agent_tui.core.sessions"
    ]
    assert door_violations("await to_thread(import_module, 'agent_tui.core.runtime')", where) == [
        f"{where}:1: agent_tui.core.runtime"
    ]
    assert door_violations("def f():\n    from agent_tui.llm.credentials import x", where) == [
        f"{where}:2: agent_tui.llm.credentials"
    ]
    assert door_violations("from agent_tui import llm", where) == [f"{where}:1: agent_tui.llm"]
    assert door_violations("from agent_tui.tools.registry import ToolRegistry", where) == [
        f"{where}:1: agent_tui.tools.registry"
    ]
    assert (
        door_violations("from agent_tui.core.api import Sessions\nfrom agent_tui.core.api import events", where) == []
    )


def test_tui_server_and_commands_enter_core_only_through_its_door() -> None:
    offenders = []
    for layer in OUTSIDE_CORE:
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            offenders += door_violations(path.read_text(), _module_of(path))
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


MCP_SDK_HOMES = (
    PACKAGE / "tools" / "mcp" / "connection.py",
    PACKAGE / "tools" / "mcp" / "client_callbacks.py",
    PACKAGE / "tools" / "mcp" / "transport.py",
    PACKAGE / "tools" / "mcp" / "oauth.py",
    PACKAGE / "mcp_serve" / "server.py",
)
"""The modules that import the ``mcp`` SDK (it costs ~0.6 s to import), and only inside functions: the
client's connection, its answers to the server (``client_callbacks``), its transports, its OAuth (the
SDK's ``OAuthClientProvider`` does the protocol; ``agent-tui mcp login`` runs it without a connection),
and the server ``agent-tui mcp serve`` runs."""


def test_the_mcp_sdk_is_imported_only_inside_functions_of_the_mcp_connection() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if not any(n.split(".")[0] in ("mcp", "mcp_types", "httpx2") for n in names):
                    continue
                if path not in MCP_SDK_HOMES or id(node) in top:
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
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
    line = next(row for row in out.stdout.splitlines() if row.startswith("MODULES"))
    return set(line.split()[1:])


def test_version_path_stays_light() -> None:
    modules = _imported_modules("--version")
    heavy = {
        m for m in modules if m.split(".")[0] in {"litellm", "textual", "pydantic", "aiosqlite", "mcp", "mcp_types"}
    }
    assert heavy == set()


def test_the_warm_launcher_stays_light() -> None:
    """What a launch imports before a warm process takes it over: no heavy library, nor ``typing``,
    OpenSSL's ``hashlib`` or ``argparse`` (each a few ms on every launch)."""
    code = (
        "import sys\n"
        "import agent_tui.cli as cli\n"
        "assert cli._surely_warm(['run', 'hi'])\n"
        "from agent_tui.warm import client\n"
        "client.place.launch_key()\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(next(line for line in out.stdout.splitlines() if line.startswith("MODULES")).split()[1:])
    heavy = {
        m
        for m in modules
        if m.split(".")[0] in {"litellm", "textual", "pydantic", "aiosqlite", "mcp", "typing", "_hashlib", "argparse"}
        or m.startswith("agent_tui.core")
    }
    assert "agent_tui.warm.client" in modules and heavy == set()
