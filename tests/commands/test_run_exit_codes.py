"""``agent-tui run`` exits with one code per way a run ends (the user guide's table, ``run --help``):
the installed entry point in a subprocess against the fake provider over HTTP, one test per code."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from pathlib import Path

import pytest

from agent_tui.commands.run_exit import RunExit, for_error
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.error_info import ErrorInfo

from .installed import AGENT_TUI, installed  # noqa: F401 (fixture)
from .test_run_cmd import Cli, session_of

BASH = {"tool_calls": [{"id": "call_b", "name": "bash", "arguments": {"command": "touch ran.txt"}}]}


async def test_0_when_the_run_ends_well(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"text": "done"})
    code, out, err = await installed.run("go")
    assert (code, out) == (0, "done\n"), err


async def test_1_when_the_model_or_provider_fails(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"error": {"status": 401, "kind": "auth", "message": "bad key"}})
    code, out, err = await installed.run("hi")
    assert (code, out) == (1, "")
    assert err.splitlines()[-1] == "agent-tui: provider.auth: bad key"


async def test_2_for_each_usage_and_config_error_and_nothing_runs(
    installed: Cli,  # noqa: F811
    fake: FakeProvider,
    workdir: Path,
    agent_home: Path,
) -> None:
    (workdir / "not-a-schema.json").write_text("{")
    cases: list[tuple[list[str], str]] = [
        (["--format", "yaml", "hi"], "invalid choice: 'yaml'"),
        (["   "], "the prompt is empty"),
        ([], "give a prompt, or --session ID / --continue"),
        (["explain @nope.py"], "@nope.py: no such file or folder"),
        (["--session", "ses_nope", "hi"], "unknown session ses_nope"),
        (["--continue", "hi"], "no session to continue in"),
        (["--agent", "ghost", "hi"], "unknown agent 'ghost'"),
        (["--output-schema", "not-a-schema.json", "hi"], "is not JSON"),
    ]
    for args, said in cases:
        code, out, err = await installed.run(*args)
        assert (code, out) == (2, ""), (args, err)
        assert said in err, (args, err)
    (agent_home / "config.toml").write_text("[retry]\nmax_retries = -1\n")
    code, out, err = await installed.run("hi")
    assert (code, out) == (2, "") and "retry.max_retries" in err, err
    (agent_home / "config.toml").unlink()
    bare = {k: v for k, v in installed.env().items() if not k.endswith("API_KEY")}
    missing_key = await asyncio.to_thread(
        subprocess.run,
        [str(AGENT_TUI), "run", "--model", "openai/gpt-4o", "hi"],
        cwd=workdir,
        env=bare,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing_key.returncode == 2 and "OPENAI_API_KEY" in missing_key.stderr, missing_key.stderr
    assert fake.requests == []  # nothing ran


async def test_3_when_no_answer_matches_the_output_schema(
    installed: Cli,  # noqa: F811
    fake: FakeProvider,
    workdir: Path,
) -> None:
    (workdir / "s.json").write_text(json.dumps({"type": "object", "required": ["n"]}))
    fake.add({"text": "three"}, {"text": "still three"})
    code, out, err = await installed.run("--output-schema", "s.json", "how many?")
    assert (code, out) == (3, "") and "no final answer matching the output schema" in err


async def test_4_when_a_refused_permission_ask_stops_the_run(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add(BASH)
    code, out, err = await installed.run("--permission", "stop", "go")
    assert (code, out) == (4, ""), err
    assert "permission.rejected: The user rejected permission for bash" in err
    assert not (installed.workdir / "ran.txt").exists() and len(fake.requests) == 1  # no request after it

    fake.add(BASH, {"text": "told no, went on"})
    code, out, err = await installed.run("go")  # --permission deny (the default): the model is told
    assert (code, out) == (0, "told no, went on\n"), err


async def test_4_when_a_user_prompt_hook_blocks_the_prompt(
    installed: Cli,  # noqa: F811
    fake: FakeProvider,
    agent_home: Path,
) -> None:
    hook = "echo 'not on a Friday' >&2; exit 2"
    (agent_home / "config.toml").write_text(f'[[hooks]]\nevent = "user_prompt"\ncommand = {json.dumps(hook)}\n')
    code, out, err = await installed.run("go")
    assert (code, out) == (4, ""), err
    assert "user_prompt hook blocked: not on a Friday" in err and fake.requests == []


async def test_5_when_another_process_runs_the_session(installed: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {"label": "owner"}}]})
    owner = await installed.start("run", *installed.model_flags(), "hold the session")
    await installed.wait_mark("block owner")
    while not (line := (await owner.stderr.readline()).decode()).startswith("session "):
        assert line, "the run ended before naming its session"
    code, out, err = await installed.run("--session", session_of(line), "me too")
    assert (code, out) == (5, "") and "is admitted there as a steer" in err
    owner.send_signal(signal.SIGTERM)
    await asyncio.wait_for(owner.communicate(), 30)
    assert owner.returncode == 143


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
async def test_interrupted_by_a_signal(installed: Cli, fake: FakeProvider, sig: int, code: int) -> None:  # noqa: F811
    fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {"label": "signal"}}]})
    proc = await installed.start("run", *installed.model_flags(), "block")
    await installed.wait_mark("block signal")
    proc.send_signal(sig)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == code, err.decode()


def test_a_run_another_client_interrupted_exits_as_interrupted() -> None:
    """The drain reports ``aborted`` when the window or ``serve`` interrupts the session ``run`` drives."""
    assert for_error(ErrorInfo(type="aborted", message="interrupted (user)")) is RunExit.INTERRUPTED == 130
    assert for_error(None) is RunExit.DONE
    assert for_error(ErrorInfo(type="permission.rejected", message="no")) is RunExit.REFUSED
    assert for_error(ErrorInfo(type="instructions.unavailable", message="x")) is RunExit.FAILED


def test_run_help_lists_every_code() -> None:
    shown = subprocess.run([str(AGENT_TUI), "run", "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0
    said = " ".join(shown.stdout.split())
    for code in [*RunExit, 143, 129]:
        assert f" {int(code)} " in said, code


def test_run_and_every_other_command_exit_with_the_same_code_for_an_unreachable_database() -> None:
    """``run_exit`` spells out 6 so it need not import the core; the two must never drift apart."""
    from agent_tui.commands.run_exit import for_store_error
    from agent_tui.core.api import DatabaseUnreachable

    unreachable = DatabaseUnreachable("postgresql://db.invalid/x", "connection refused")
    assert RunExit.UNREACHABLE == DatabaseUnreachable.exit_code
    assert for_store_error(unreachable) == DatabaseUnreachable.exit_code
    assert for_store_error(RuntimeError("disk full")) == RunExit.FAILED
