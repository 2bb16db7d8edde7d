"""An allow rule allows plain words only: every construct that can run code the rule
does not name is asked, proven with marker files and the real bash tool."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from agent_tui.tools.asks import PermissionDecision
from agent_tui.tools.bash import BASH
from agent_tui.vocab.kinds import Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker

from .conftest import gate_for, invoke_tool

REJECT = PermissionDecision(reply=PermissionReply.REJECT)
MARKER = "m"

# (command, the allow rule it would slip through): each runs `touch m`, which no rule names.
HIDDEN_FROM_THE_RULES = [
    ("x='a[$(touch m)]'; echo ${!x}", "echo *"),
    ("x='a[$(touch m)]'; echo $((x))", "echo *"),
    ("x='a[$(touch m)]'; echo ${a[x]}", "echo *"),
    ("x='$(touch m)'; echo ${x@P}", "echo *"),
    ("x='a[$(touch m)]'; [[ $x -eq 0 ]]; echo done", "echo *"),
    ("x='a[$(touch m)]'; [[ -v $x ]]; echo done", "echo *"),
    ("x='a[$(touch m)]'; (( x )); echo done", "echo *"),
    ("test -v 'a[$(touch m)]'", "test *"),
    ("printf -v 'a[$(touch m)]' x", "printf *"),
    ("test '-v' 'a[$(touch m)]'", "test *"),
    ("printf -v'a[$(touch m)]' x", "printf *"),
    ("jobs -x touch m", "jobs *"),
    ("PATH=.; ls", "ls *"),
    ("eval 'touch m;' --version", "* --version"),
    ("builtin eval 'touch m;' --version", "* --version"),
    ("command eval 'touch m;' --version", "* --version"),
    ("exec bash -c 'touch m' --version", "* --version"),
    ("source ./script --version", "* --version"),
    (". ./script --version", "* --version"),
]
# Constructs whose inner command the simple-command split already saw; asked all the same.
VISIBLE_TO_THE_SPLIT = [
    ("echo $(touch m)", "echo *"),
    ('echo "$(touch m)"', "echo *"),
    ("echo `touch m`", "echo *"),
    ("echo <<EOF\n$(touch m)\nEOF", "echo *"),
    ("echo $((a[$(touch m)]))", "echo *"),
    ("[[ -v a[$(touch m)] ]]; echo done", "echo *"),
    ("echo ${x:-$(touch m)}", "echo *"),
    ("echo <(touch m)", "echo *"),
    ("echo >(touch m)", "echo *"),
    ("PATH=. ls", "*ls*"),
    ("./ls", "*ls*"),
]


def _project_with_tricks(workdir: Path) -> None:
    """A project that ships its own `ls` and a sourceable script, both touching the marker."""
    for name in ("ls", "script"):
        path = workdir / name
        path.write_text(f"#!/bin/sh\n: > {MARKER}\n")  # no `touch`: PATH may be just "."
        path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _appears(path: Path, timeout_s: float = 5.0) -> bool:
    """Process substitutions run on after the shell exits: wait for the marker, never a fixed sleep."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.01)
    return path.exists()


@pytest.mark.parametrize(("command", "pattern"), HIDDEN_FROM_THE_RULES + VISIBLE_TO_THE_SPLIT)
async def test_code_the_rule_does_not_name_is_asked_and_never_runs_when_rejected(
    workdir: Path, make_scope, command: str, pattern: str
) -> None:
    _project_with_tricks(workdir)
    marker = workdir / MARKER
    ran = await invoke_tool(BASH, make_scope(), command=command)  # no gate: the construct really runs code
    assert ran.output is not None and _appears(marker), f"{command!r} did not run its hidden command"
    marker.unlink()

    asker = RecordingAsker(REJECT)
    rules = [PermissionRule(action="bash", pattern=pattern, effect=Effect.ALLOW)]
    outcome = await invoke_tool(BASH, make_scope(gate=gate_for(workdir, asker, rules)), command=command)
    assert [r.action for r in asker.requests] == ["bash"], f"{command!r} was allowed by {pattern!r}"
    assert asker.requests[0].resources == [" ".join(command.split())]
    assert asker.requests[0].detail["not_plain"]
    assert outcome.error is not None and outcome.error.type == "permission.rejected"
    assert not marker.exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo hello 'world'",
        'echo "a b" c\\ d 42 --flag=x',
        "echo one && echo two; echo three | cat",
        "(echo sub) || echo other",
        "echo 'a[$(touch m)]' \"x\"y",
        "cat <<'EOF'\n$(touch m)\nEOF",
    ],
)
async def test_plain_words_are_still_allowed_by_the_rule(workdir: Path, make_scope, command: str) -> None:
    asker = RecordingAsker(REJECT)
    rules = [PermissionRule(action="bash", pattern=p, effect=Effect.ALLOW) for p in ("echo *", "cat *")]
    outcome = await invoke_tool(BASH, make_scope(gate=gate_for(workdir, asker, rules)), command=command)
    assert asker.requests == [] and outcome.output is not None
    assert not (workdir / MARKER).exists()


async def test_bare_star_still_allows_anything(workdir: Path, make_scope) -> None:
    asker = RecordingAsker(REJECT)
    rules = [PermissionRule(action="bash", pattern="*", effect=Effect.ALLOW)]
    outcome = await invoke_tool(BASH, make_scope(gate=gate_for(workdir, asker, rules)), command="echo $(touch m)")
    assert asker.requests == [] and outcome.output is not None and (workdir / MARKER).exists()


async def test_deny_rules_still_see_inside_lines_that_are_not_plain(workdir: Path, make_scope) -> None:
    rules = [
        PermissionRule(action="bash", pattern="*", effect=Effect.ALLOW),
        PermissionRule(action="bash", pattern="touch *", effect=Effect.DENY),
    ]
    outcome = await invoke_tool(
        BASH, make_scope(gate=gate_for(workdir, RecordingAsker(REJECT), rules)), command="echo ${x:-$(touch m)}"
    )
    assert outcome.error is not None and outcome.error.type == "permission.denied"
    assert not (workdir / MARKER).exists()


async def test_a_command_found_in_the_project_through_path_is_asked(
    workdir: Path, make_scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project_with_tricks(workdir)
    monkeypatch.setenv("PATH", f"{workdir}{os.pathsep}{os.environ['PATH']}")
    asker = RecordingAsker(REJECT)
    rules = [PermissionRule(action="bash", pattern="ls *", effect=Effect.ALLOW)]
    outcome = await invoke_tool(BASH, make_scope(gate=gate_for(workdir, asker, rules)), command="ls -la")
    assert [r.resources for r in asker.requests] == [["ls -la"]]
    assert "inside the project" in asker.requests[0].detail["not_plain"]
    assert outcome.error is not None and not (workdir / MARKER).exists()
    monkeypatch.setenv("PATH", f".{os.pathsep}{os.environ['PATH']}")
    await invoke_tool(BASH, make_scope(gate=gate_for(workdir, asker, rules)), command="ls -la")
    assert "relative PATH entry" in asker.requests[-1].detail["not_plain"]


async def test_saved_approvals_and_always_replies_only_cover_plain_lines(workdir: Path) -> None:
    class Saved:
        async def approved(self, project_root: str) -> list[tuple[str, str]]:
            return [("bash", "echo *")]

    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ALWAYS))
    gate = gate_for(workdir, asker, approvals=Saved())
    await gate.check("bash", ["echo plain"])
    assert asker.requests == []
    await gate.check("bash", ["echo $(id)"])
    await gate.check("bash", ["echo $(id)"])  # "always" saved `echo *` and `id *`: still not plain
    assert len(asker.requests) == 2 and asker.requests[0].save_patterns == ["echo *", "id *"]
    await gate.check("bash", ["id -u"])  # but plain uses of what was saved are covered
    assert len(asker.requests) == 2
