"""Simple commands of a bash command line, found with the tree-sitter bash grammar.

A permission rule for ``bash`` must hold for every command that would run:
each part of a list (``;``, ``&&``, ``||``), pipeline, subshell, command or
process substitution, backticks, function body. Splitting strings by hand
gets quoting wrong; a real parser does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_COMMAND_NODES = {"command", "declaration_command", "unset_command"}


@dataclass(frozen=True)
class ParsedCommand:
    commands: list[str]
    """Every simple command (with its own redirections), in source order."""
    complete: bool
    """False when the parser found syntax errors: the parts may not be what runs."""


@lru_cache(maxsize=1)
def _language() -> Any:
    import tree_sitter_bash
    from tree_sitter import Language

    return Language(tree_sitter_bash.language())


def parse_tree(command: str) -> Any:
    """The tree-sitter syntax tree of a bash line (``tree.root_node``)."""
    from tree_sitter import Parser

    return Parser(_language()).parse(command.encode("utf-8"))


def parse_command(command: str) -> ParsedCommand:
    tree = parse_tree(command)
    found: list[str] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in _COMMAND_NODES:
            owner = node.parent if node.parent is not None and node.parent.type == "redirected_statement" else node
            if owner is not node and owner.child_by_field_name("body") != node:
                owner = node
            found.append(_text(owner))
        stack.extend(reversed(node.children))
    if not found and command.strip():
        found.append(command.strip())
    return ParsedCommand(commands=found, complete=not tree.root_node.has_error)


_ARGUMENT_NODES = {"word", "string", "raw_string"}
HARMLESS_PATHS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin")
"""Paths outside every project that reading or writing never harms."""


def absolute_arguments(command: str) -> list[str]:
    """Arguments and redirect targets that are absolute or ``~`` paths (advisory only:
    variables, globs and ``cd`` make any such scan incomplete)."""
    found: list[str] = []
    stack = [parse_tree(command).root_node]
    while stack:
        node = stack.pop()
        if node.type in _ARGUMENT_NODES and (node.parent is None or node.parent.type != "command_name"):
            text = node.text.decode("utf-8", errors="replace")
            if node.type != "word":
                text = text[1:-1]
            if text.startswith(("/", "~")) and text not in HARMLESS_PATHS:
                found.append(text)
            continue
        stack.extend(reversed(node.children))
    return list(dict.fromkeys(found))


def _text(node: Any) -> str:
    return " ".join(node.text.decode("utf-8", errors="replace").split())


def suggest_pattern(simple_command: str) -> str:
    """``git status --short`` -> ``git status *``; ``ls -la`` -> ``ls *``."""
    words = simple_command.split()
    if not words:
        return "*"
    prefix = words[:1]
    if len(words) > 1 and words[1][:1].isalpha() and words[1].replace("-", "").replace("_", "").isalnum():
        prefix.append(words[1])
    return " ".join(prefix) + " *"
