"""What a bash command reaches beyond the project: files its redirections write, and
the secrets in the agent's environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.tools.asks import NoApprovals, PermissionDecision
from agent_tui.tools.bash import BASH
from agent_tui.tools.permissions import PermissionGate
from agent_tui.tools.shell_env import shell_environment
from agent_tui.vocab.kinds import Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker

from .conftest import gate_for, invoke_tool

ECHO_ALLOWED = [PermissionRule(action="bash", pattern="echo *", effect=Effect.ALLOW)]
REJECT = PermissionDecision(reply=PermissionReply.REJECT)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere"
    path.mkdir()
    return path.resolve()


@pytest.mark.parametrize(
    ("redirect", "target"),
    [
        ("> {o}/x", "x"),
        (">> {o}/x", "x"),
        ("2> {o}/x", "x"),
        ("&> {o}/x", "x"),
        ("&>> {o}/x", "x"),
        (">| {o}/x", "x"),
        (">& {o}/x", "x"),
        ("> '{o}/a b'", "a b"),
        ("> ../elsewhere/x", "x"),
        ("> link/x", "x"),
        (">> ~/x", "x"),
    ],
)
async def test_a_redirect_outside_the_project_is_an_external_directory_ask(
    workdir: Path, outside: Path, make_scope, monkeypatch: pytest.MonkeyPatch, redirect: str, target: str
) -> None:
    (workdir / "link").symlink_to(outside)
    monkeypatch.setenv("HOME", str(outside))
    command = f"echo hi {redirect.format(o=outside)}"
    asker = RecordingAsker(REJECT)
    outcome = await invoke_tool(BASH, make_scope(gate=gate_for(workdir, asker, ECHO_ALLOWED)), command=command)
    assert [(r.action, r.resources) for r in asker.requests] == [("external_directory", [outside.as_posix()])]
    assert asker.requests[0].save_patterns == [f"{outside.as_posix()}/*"]
    assert outcome.error is not None and not (outside / target).exists()

    allowed = ECHO_ALLOWED + [PermissionRule(action="external_directory", pattern=f"{outside}/*", effect=Effect.ALLOW)]
    outcome = await invoke_tool(BASH, make_scope(gate=gate_for(workdir, asker, allowed)), command=command)
    assert len(asker.requests) == 1 and outcome.output is not None and (outside / target).exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo hi > out.txt",
        "echo hi >> sub/../out.txt",
        "echo hi > /dev/null 2>&1",
        "echo hi 2>/dev/stderr >&2",
        f"echo hi > {'{w}'}/abs.txt",
    ],
)
async def test_redirects_inside_the_project_ask_nothing(workdir: Path, make_scope, command: str) -> None:
    (workdir / "sub").mkdir()
    asker = RecordingAsker(REJECT)
    outcome = await invoke_tool(
        BASH, make_scope(gate=gate_for(workdir, asker, ECHO_ALLOWED)), command=command.format(w=workdir)
    )
    assert asker.requests == [] and outcome.output is not None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segments=st.lists(st.sampled_from(["..", ".", "a", "b c", "sub"]), min_size=1, max_size=5))
async def test_relative_redirects_are_asked_exactly_when_they_leave(
    workdir: Path, make_scope, segments: list[str]
) -> None:
    (workdir / "sub").mkdir(exist_ok=True)
    relative = "/".join(segments) + "/f"
    leaves = not (workdir / os.path.normpath(relative)).resolve().is_relative_to(workdir)
    asker = RecordingAsker(REJECT)
    gate = PermissionGate(ECHO_ALLOWED, NoApprovals(), asker, workdir, workdir)
    await invoke_tool(BASH, make_scope(gate=gate), command=f"echo hi > '{relative}'")
    assert [r.action for r in asker.requests] == (["external_directory"] if leaves else [])


SECRETS = {
    "OPENAI_API_KEY": "sk-openai",
    "ANTHROPIC_API_KEY": "sk-ant",
    "AGENT_TUI_SERVER_TOKEN": "tok",
    "AGENT_TUI_API_KEY": "k",
    "AWS_SECRET_ACCESS_KEY": "aws",
    "AWS_ACCESS_KEY_ID": "id",
    "AZURE_AD_TOKEN": "az",
    "GOOGLE_APPLICATION_CREDENTIALS": "/g.json",
    "GITHUB_TOKEN": "gh",
    "HF_TOKEN": "hf",
    "WATSONX_APIKEY": "w",
}


async def _bash_environment(make_scope, **ctx_args: object) -> dict[str, str]:
    outcome = await invoke_tool(BASH, make_scope(**ctx_args), command="env -0")
    assert outcome.output is not None
    text = outcome.output.text.rsplit("\n", 1)[0]  # the last line is the exit status
    return dict(entry.split("=", 1) for entry in text.split("\0") if "=" in entry)


async def test_bash_gets_no_provider_keys_or_agent_secrets(make_scope, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MY_BUILD_FLAGS", "-O2")
    seen = await _bash_environment(make_scope)
    assert not set(SECRETS) & set(seen)
    assert seen["MY_BUILD_FLAGS"] == "-O2" and seen["PATH"] == os.environ["PATH"] and seen["PAGER"] == "cat"

    seen = await _bash_environment(make_scope, shell_env_include=("OPENAI_API_KEY", "AWS_*", "GITHUB_TOKEN"))
    assert {
        n: seen.get(n) for n in ("OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN")
    } == {
        "OPENAI_API_KEY": "sk-openai",
        "AWS_SECRET_ACCESS_KEY": "aws",
        "AWS_ACCESS_KEY_ID": "id",
        "GITHUB_TOKEN": "gh",
    }
    assert "ANTHROPIC_API_KEY" not in seen and "AGENT_TUI_SERVER_TOKEN" not in seen


@given(
    name=st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True),
    provider=st.from_regex(r"[A-Z][A-Z0-9]{0,8}", fullmatch=True),
)
def test_every_provider_key_shape_is_kept_out_unless_named(name: str, provider: str) -> None:
    environ = {
        f"{provider}_API_KEY": "1",
        f"{provider}_API_TOKEN": "2",
        f"OPENAI_{name}": "3",
        f"ANTHROPIC_{name}": "4",
        f"AGENT_TUI_{name}": "5",
    }
    assert shell_environment(environ) == {}
    assert shell_environment(environ, [f"{provider}_API_KEY"]) == {f"{provider}_API_KEY": "1"}


@pytest.mark.parametrize("redirect", [">> l*", "> ~-/x", "> l?"])
async def test_a_redirect_whose_target_bash_expands_outside_is_asked_too(
    workdir: Path, outside: Path, make_scope, monkeypatch: pytest.MonkeyPatch, redirect: str
) -> None:
    (workdir / "lf").symlink_to(outside / "x")  # `l*` is this one file, so bash writes through it
    monkeypatch.setenv("OLDPWD", str(outside))
    asker = RecordingAsker(REJECT)
    outcome = await invoke_tool(
        BASH, make_scope(gate=gate_for(workdir, asker, ECHO_ALLOWED)), command=f"echo hi {redirect}"
    )
    assert [(r.action, r.resources) for r in asker.requests] == [("external_directory", [outside.as_posix()])]
    assert outcome.error is not None and not (outside / "x").exists()
