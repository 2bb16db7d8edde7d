"""The plain-words grammar, checked against the real bash: what it calls plain runs nothing hidden."""

from __future__ import annotations

import shlex
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.tools.shell_grammar import read_line, write_targets

HAZARDS = [
    "$(touch MARK)",
    "`touch MARK`",
    '"$(touch MARK)"',
    "x='a[$(touch MARK)]'",
    "${!x}",
    "$((x))",
    "${x@P}",
    "${x:-$(touch MARK)}",
    "eval",
    "source",
    ".",
    "exec",
    "command",
    "builtin",
    "'touch MARK;'",
    "[[ -v $x ]]",
    "(( x ))",
    "<(touch MARK)",
    ">(touch MARK)",
    "$x",
    "a[$(touch MARK)]",
    '"\\$(touch MARK)"',
    "let",
    "declare",
    "export",
    "PATH=.",
    "alias",
    "trap",
    "'a[$(touch MARK)]'",
    "$'touch MARK'",
    "-v",
    "test",
    "printf",
    "read",
    "unset",
    "<<EOF\n$(touch MARK)\nEOF\n",
    "<<'EOF'\n$(touch MARK)\nEOF\n",
    "\\`touch MARK\\`",
    "&",
    "jobs",
    "-x",
    "touch MARK",
]
NAMES = ["echo", "cat", "true", "printf", "test", "pwd"]
ARGUMENTS = ["x", "'a b'", '"q r"', "42", "--flag=1", "> out", "2>&1", "<<< word"]
OPERATORS = [" ; ", " && ", " || ", " | ", "\n"]
ATTACKS = [
    "x='a[$(touch MARK)]'; echo ${!x}",
    "x='a[$(touch MARK)]'; echo $((x))",
    "x='$(touch MARK)'; echo ${x@P}",
    "x='a[$(touch MARK)]'; [[ $x -eq 0 ]]",
    "x='a[$(touch MARK)]'; (( x ))",
    "PATH=.; ls",
    "y=MARK; : > $y",
]
"""Whole commands that run hidden code (``ls`` is a script in the test directory)."""


def _run(command: str, cwd: Path) -> None:
    subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=10,
        check=False,
    )


@st.composite
def _lines(draw: st.DrawFn) -> str:
    """Simple commands of plain words joined by operators, with hazards placed anywhere in them."""
    commands = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 4)) == 0:
            commands.append(draw(st.sampled_from(ATTACKS)))
            continue
        words = [draw(st.sampled_from(NAMES)), *draw(st.lists(st.sampled_from(ARGUMENTS), max_size=3))]
        for hazard in draw(st.lists(st.sampled_from(HAZARDS), max_size=2)):
            words.insert(draw(st.integers(0, len(words))), hazard)
        command = " ".join(words)
        commands.append(f"( {command} )" if draw(st.booleans()) and draw(st.booleans()) else command)
    return "".join(c + draw(st.sampled_from(OPERATORS)) for c in commands[:-1]) + commands[-1]


@settings(max_examples=400, deadline=None)
@given(command=_lines())
def test_a_plain_line_runs_only_the_commands_it_names(command: str) -> None:
    line = read_line(command)
    if not line.plain or "touch" in line.command_names:  # `touch MARK` as a command is named, not hidden
        return
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "ls"
        script.write_text("#!/bin/sh\n: > MARK\n")
        script.chmod(0o755)
        _run(command, Path(directory))
        assert not (Path(directory) / "MARK").exists(), f"{command!r} is called plain but ran hidden code"


@settings(max_examples=60, deadline=None)
@given(
    arguments=st.lists(
        st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
        min_size=1,
        max_size=4,
    )
)
def test_any_quoted_text_is_plain_and_reaches_the_command_as_written(arguments: list[str]) -> None:
    command = "printf '%s\\0' " + " ".join(shlex.quote(a) for a in arguments)
    assert read_line(command).plain, command
    out = subprocess.run(["bash", "--noprofile", "--norc", "-c", command], capture_output=True, timeout=10, check=True)
    assert out.stdout.decode("utf-8", errors="surrogateescape").split("\0")[:-1] == arguments


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("echo $(id)", "command substitution"),
        ("echo ${!x}", "parameter expansion"),
        ("PATH=. ls", "assignment"),
        ("./ls", "command name"),
        ("eval ls", "command name"),
        ("echo a & echo b", "'&'"),
        ("echo 'x", "syntax"),
        ("printf -v x 1", "-v"),
        ("[[ -n x ]]", "test"),
        ("echo $((1))", "arithmetic"),
        ("cd /tmp && echo > f", "relative"),
        ("echo > l*", "expanded"),
        ("echo > ~-/x", "expanded"),
        ("cat <<EOF\na $[1] b\nEOF", "'$'"),
    ],
)
def test_each_refusal_says_why(command: str, reason: str) -> None:
    assert reason in (read_line(command).not_plain or "")


def test_write_targets_are_literal_files_after_quote_removal() -> None:
    line = "echo > a 2>> 'b c' &> \"d\"e >& f 2>&1 < in >&- 3>/dev/null"
    assert write_targets(line) == ["a", "b c", "de", "f", "/dev/null"]
    assert read_line(line).write_targets == write_targets(line)
