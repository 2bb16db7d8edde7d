"""The leaves stay leaves: ``llm`` and ``tools`` never reach up, ``vocab`` reaches nowhere.

Dependencies point one way (DESIGN §1): tui/server/cli -> core -> (llm, tools),
and the types both sides need live in ``agent_tui.vocab``, which imports
nothing from ``agent_tui`` but itself. Every import counts: module level,
inside functions, under ``TYPE_CHECKING``, relative or absolute.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "agent_tui"

ABOVE_THE_LEAVES = ("agent_tui.core", "agent_tui.tui", "agent_tui.server", "agent_tui.commands", "textual")
"""What ``llm`` and ``tools`` must not import."""

PYDANTIC_FREE = ("kinds.py", "clock.py", "mcp_names.py")
"""The vocab modules the TUI's first frame imports: pydantic costs ~60 ms there."""


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _resolve(node: ast.ImportFrom, package: str) -> str:
    """The absolute module of ``from <module> import ...``, relative ones resolved against ``package``."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def offenders(source: str, package: str, forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()) -> list[str]:
    """Every module ``source`` imports that is under ``forbidden`` and not under ``allowed``.

    ``package`` is the package the source lives in (``agent_tui.tools`` for
    ``agent_tui/tools/bash.py``). ``from M import n`` may import a submodule
    ``M.n``, so both are checked; the offender named is ``M`` when ``M``
    itself is forbidden. An ancestor of an allowed package (``agent_tui`` for
    ``agent_tui.vocab``) is not an offender by itself.
    """

    def bad(name: str) -> bool:
        ancestor = any(a.startswith(name + ".") for a in allowed)
        return _under(name, forbidden) and not _under(name, allowed) and not ancestor

    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if bad(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(node, package)
            if bad(module):
                found.append(module)
            else:
                found += [f"{module}.{alias.name}" for alias in node.names if bad(f"{module}.{alias.name}")]
    return found


def _package_of(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).parent.parts)


def _tree_offenders(layer: str, forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()) -> list[str]:
    return [
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for name in offenders(path.read_text(), _package_of(path), forbidden, allowed)
    ]


# -- the checker itself ----------------------------------------------------------


def test_the_checker_finds_an_import_from_core() -> None:
    source = "from agent_tui.core.log.events import ToolOutput\n"
    assert offenders(source, "agent_tui.tools", ABOVE_THE_LEAVES) == ["agent_tui.core.log.events"]


def test_the_checker_resolves_relative_imports() -> None:
    assert offenders("from ..core import paths\n", "agent_tui.tools", ABOVE_THE_LEAVES) == ["agent_tui.core"]
    assert offenders("from .. import core\n", "agent_tui.tools", ABOVE_THE_LEAVES) == ["agent_tui.core"]
    assert offenders("from ...core import paths\n", "agent_tui.tools.apply_patch", ABOVE_THE_LEAVES) == [
        "agent_tui.core"
    ]
    assert offenders("from .errors import ToolError\n", "agent_tui.tools", ABOVE_THE_LEAVES) == []


def test_the_checker_sees_imports_inside_functions() -> None:
    source = "def f():\n    import textual.widgets\n    from agent_tui.tui import app\n"
    assert offenders(source, "agent_tui.llm", ABOVE_THE_LEAVES) == ["textual.widgets", "agent_tui.tui"]


def test_the_checker_lets_the_vocabulary_through() -> None:
    source = "from agent_tui.vocab.kinds import Effect\nimport agent_tui.llm.types\n"
    assert offenders(source, "agent_tui.tools", ABOVE_THE_LEAVES) == []
    assert offenders("from agent_tui import vocab\n", "agent_tui.vocab", ("agent_tui",), ("agent_tui.vocab",)) == []
    assert offenders("from agent_tui import core\n", "agent_tui.vocab", ("agent_tui",), ("agent_tui.vocab",)) == [
        "agent_tui.core"
    ]


# -- the tree --------------------------------------------------------------------


@pytest.mark.parametrize("layer", ["llm", "tools"])
def test_leaves_import_nothing_above_them(layer: str) -> None:
    assert _tree_offenders(layer, ABOVE_THE_LEAVES) == []


def test_vocab_imports_only_itself_from_agent_tui() -> None:
    assert _tree_offenders("vocab", ("agent_tui",), ("agent_tui.vocab",)) == []


def test_vocab_enums_and_clock_import_no_pydantic() -> None:
    found = [
        f"{name}: {offender}"
        for name in PYDANTIC_FREE
        for offender in offenders((PACKAGE / "vocab" / name).read_text(), "agent_tui.vocab", ("pydantic",))
    ]
    assert found == []
    code = "import sys, agent_tui.vocab.kinds, agent_tui.vocab.clock; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
