"""Is a bash line plain words only? A small grammar of what is known safe.

An allow rule such as ``git status *`` names the commands it lets run. Bash can
run code hidden almost anywhere else in a line: command substitution (also in
strings and here-documents), arithmetic and ``[[ ]]`` contexts that evaluate
array subscripts, indirect and nested expansions, assignments to ``PATH``,
builtins that run their arguments (``eval``, ``source``, ``exec``, ...). Rather
than list those (the list is never complete), :func:`read_line` accepts only
the node kinds known to be inert, as Codex does: simple commands of literal
words and quoted strings without expansions, joined by ``&&``, ``||``, ``;``,
``|``, in subshells, with redirections to literal files and literal
here-documents. Anything else makes the line not plain, and the permission
gate asks for it whatever the rules say (only a bare ``*`` rule allows it).

Where a plain command comes from (``PATH`` entries inside the project) is
judged by :mod:`.command_origin`; where its redirections write, by the bash tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent_tui.tools.shell_parse import parse_tree

_INERT_NODES = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "command",
        "command_name",
        "redirected_statement",
        "word",
        "number",
        "string",
        "string_content",
        "raw_string",
        "concatenation",
        "comment",
        "file_redirect",
        "file_descriptor",
        "herestring_redirect",
        "heredoc_redirect",
        "heredoc_start",
        "heredoc_body",
        "heredoc_content",
        "heredoc_end",
    }
)
_INERT_TOKENS = frozenset(
    {
        "&&",
        "||",
        ";",
        "|",
        "|&",
        "\n",
        '"',
        "(",
        ")",
        ">",
        ">>",
        "<",
        "&>",
        "&>>",
        ">&",
        "<&",
        ">|",
        ">&-",
        "<&-",
        "<<",
        "<<-",
        "<<<",
    }
)
_WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">&", ">|"})
_EXPANDED_IN_TARGETS = ("*", "?", "[", "{")
"""A redirection target with these may name another file than it reads as (``> l*`` is ``lf``)."""
_SPECIAL_IN_TEXT = ("$", "`")
"""Literal text never holds these: tree-sitter should have made them nodes, so refuse rather than trust it."""

_COMMAND_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+:@%,-]*")
"""A name looked up in PATH: no ``/`` (no ``./tool``), no globs, no quotes."""

_PLAIN_BUILTINS = frozenset(
    {
        ":",
        "true",
        "false",
        "echo",
        "printf",
        "pwd",
        "cd",
        "pushd",
        "popd",
        "dirs",
        "test",
        "type",
        "kill",
        "umask",
        "times",
        "help",
    }
)
"""The builtins that run no code and evaluate no arithmetic (``test``/``printf`` minus ``-v``/``-R``)."""
_NAME_TAKING_OPTIONS = frozenset({"-v", "-R"})
"""``test -v 'a[$(cmd)]'`` (and ``printf -v 'a[$(cmd)]'``) evaluate the subscript."""
_SHELL_WORDS = frozenset(
    {
        ".",
        "[",
        "alias",
        "bg",
        "bind",
        "break",
        "builtin",
        "caller",
        "command",
        "compgen",
        "complete",
        "compopt",
        "continue",
        "declare",
        "disown",
        "enable",
        "eval",
        "exec",
        "exit",
        "export",
        "fc",
        "fg",
        "getopts",
        "hash",
        "history",
        "jobs",
        "let",
        "local",
        "logout",
        "mapfile",
        "read",
        "readarray",
        "readonly",
        "return",
        "set",
        "shift",
        "shopt",
        "source",
        "suspend",
        "trap",
        "typeset",
        "ulimit",
        "unalias",
        "unset",
        "wait",
        "!",
        "case",
        "coproc",
        "do",
        "done",
        "elif",
        "else",
        "esac",
        "fi",
        "for",
        "function",
        "if",
        "in",
        "select",
        "then",
        "time",
        "until",
        "while",
        "{",
        "}",
        "[[",
        "]]",
    }
)
"""Bash builtins and reserved words outside :data:`_PLAIN_BUILTINS`: each can run or redirect code."""
DIRECTORY_CHANGES = frozenset({"cd", "pushd", "popd"})


@dataclass(frozen=True)
class ShellLine:
    """What :func:`read_line` found in a command line."""

    not_plain: str | None
    """Why the line is not plain words (``None`` when it is)."""
    command_names: list[str] = field(default_factory=list)
    """Names of the external (non-builtin) commands it runs, for :mod:`.command_origin`."""
    write_targets: list[str] = field(default_factory=list)
    """Literal files its redirections write (``>``, ``>>``, ``&>``, ``2>`` ...), quotes removed."""
    changes_directory: bool = False

    @property
    def plain(self) -> bool:
        return self.not_plain is None


class _NotPlain(Exception):
    pass


def read_line(command: str) -> ShellLine:
    """Walk the whole tree; the first construct outside the grammar makes the line not plain."""
    root = parse_tree(command).root_node
    walk = _Walk()
    try:
        if root.has_error:
            raise _NotPlain("bash cannot read it as written (a syntax error)")
        walk.visit(root)
        if walk.changes_directory and any(not t.startswith(("/", "~")) for t in walk.write_targets):
            raise _NotPlain("a redirection to a relative path after a change of directory")
    except _NotPlain as reason:
        return ShellLine(str(reason), walk.command_names, walk.write_targets, walk.changes_directory)
    return ShellLine(None, walk.command_names, walk.write_targets, walk.changes_directory)


def write_targets(command: str) -> list[str]:
    """The literal files the line's redirections write, even when the line is not plain."""
    found: list[str] = []
    stack = [parse_tree(command).root_node]
    while stack:
        node = stack.pop()
        target = _write_target(node) if node.type == "file_redirect" else None
        if target is not None:
            found.append(target)
        stack.extend(reversed(node.children))
    return list(dict.fromkeys(found))


class _Walk:
    def __init__(self) -> None:
        self.command_names: list[str] = []
        self.write_targets: list[str] = []
        self.changes_directory = False

    def visit(self, node: Any) -> None:
        if not node.is_named:
            if node.type not in _INERT_TOKENS:
                raise _NotPlain(f"the shell operator {node.type!r}")
            return
        if node.type not in _INERT_NODES:
            raise _NotPlain(_describe(node))
        match node.type:
            case "word" | "string_content" | "heredoc_body" | "comment":
                if node.type != "comment" and any(c in _text(node) for c in _SPECIAL_IN_TEXT):
                    raise _NotPlain(f"'$' or '`' in {_text(node)!r}")
                return
            case "command":
                self._command(node)
            case "file_redirect":
                target = _write_target(node)
                if target is not None:
                    if any(c in target for c in _EXPANDED_IN_TARGETS) or target.startswith(("~+", "~-")):
                        raise _NotPlain(f"the redirection target {target!r} is expanded (glob, braces, ~+, ~-)")
                    self.write_targets.append(target)
            case "heredoc_redirect" if _quoted_delimiter(node):
                return  # a quoted delimiter makes the body literal text
        for child in node.children:
            self.visit(child)

    def _command(self, node: Any) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None or name_node.named_child_count != 1 or name_node.named_children[0].type != "word":
            raise _NotPlain("a command whose name is not one plain word")
        name = _text(name_node)
        if not _COMMAND_NAME.fullmatch(name) or name in _SHELL_WORDS:
            raise _NotPlain(f"the command name {name!r} (a path, or a shell builtin that can run code)")
        arguments = [_literal(a) for a in node.children_by_field_name("argument")]
        if (name == "test" and _NAME_TAKING_OPTIONS.intersection(arguments)) or (
            name == "printf" and arguments and arguments[0].startswith("-v")
        ):
            raise _NotPlain(f"{name} -v/-R (it evaluates array subscripts)")
        if name in DIRECTORY_CHANGES:
            self.changes_directory = True
        if name not in _PLAIN_BUILTINS:
            self.command_names.append(name)


def _write_target(redirect: Any) -> str | None:
    operator = next((c.type for c in redirect.children if not c.is_named and c.type != "file_descriptor"), None)
    destination = redirect.child_by_field_name("destination")
    if operator not in _WRITE_OPERATORS or destination is None or destination.type == "number":
        return None
    return _literal(destination)


def _quoted_delimiter(heredoc: Any) -> bool:
    start = next((c for c in heredoc.children if c.type == "heredoc_start"), None)
    return start is not None and any(q in _text(start) for q in ("'", '"', "\\"))


def _literal(node: Any) -> str:
    """The word bash would see after quote removal (for plain words)."""
    match node.type:
        case "raw_string":
            return _text(node)[1:-1]
        case "string":
            return "".join(_text(c) for c in node.named_children)
        case "concatenation":
            return "".join(_literal(c) for c in node.named_children)
        case _:
            return re.sub(r"\\(.)", r"\1", _text(node))


def _describe(node: Any) -> str:
    names = {
        "command_substitution": "command substitution $( ) or ` `",
        "process_substitution": "process substitution <( ) or >( )",
        "arithmetic_expansion": "arithmetic $(( )) (it evaluates subscripts)",
        "test_command": "a [[ ]] or [ ] test (it evaluates subscripts)",
        "simple_expansion": "a variable expansion",
        "expansion": "a parameter expansion ${ }",
        "variable_assignment": "a variable assignment (PATH and friends change what runs)",
        "declaration_command": "a declaration (export, declare, local ...)",
    }
    return names.get(node.type, f"the construct {node.type.replace('_', ' ')}")


def _text(node: Any) -> str:
    text: bytes = node.text
    return text.decode("utf-8", errors="replace")
